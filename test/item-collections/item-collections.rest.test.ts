import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// spec 001, "Item collection and entry" (fields) and "Item collections" (endpoints):
// GET/POST /item-collections, GET /item-collections/{id}, GET/POST /item-collections/{id}/entries,
// PUT/DELETE /item-collections/{id}/entries/{entry_id}. Errors {error, status} (spec 000 "Errors").

interface Refs {
  tenant: Tenant;
  vat25: number;
  vat15: number;
  item: number;
  item2: number;
  partner: number;
  project: number;
  project2: number;
}

const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe.each(targets())('item collections REST (%s)', (target) => {
  let app: TestApp;
  let me: Refs;
  let them: Refs;
  let piece: number;
  let hour: number;
  let n = 0;

  /** A tenant with an item, a business partner and a project of its own. */
  async function refs(tenant: Tenant): Promise<Refs> {
    const prisma = app.db.prisma;
    const vat25 = await tenant.taxCode('3');
    const vat15 = await tenant.taxCode('31');
    const mkItem = async (itemNo: string) =>
      (await prisma.item.create({ data: { clientAccountId: tenant.account.id, itemNo, name: `Vare ${itemNo}`, salesUnitId: piece, taxCodeId: vat25, price: '99.5' } })).id;
    const mkProject = async (seq: number) =>
      (await prisma.project.create({ data: { clientAccountId: tenant.account.id, sequenceNumber: seq, name: `Prosjekt ${seq}` } })).id;
    const partner = await prisma.businessPartner.create({
      data: { clientAccountId: tenant.account.id, name: 'Kunde AS', organizationNumber: '923609016', email: 'post@kunde.example', isCustomer: true },
    });
    return { tenant, vat25, vat15, item: await mkItem('V-1'), item2: await mkItem('V-2'), partner: partner.id, project: await mkProject(1), project2: await mkProject(2) };
  }

  beforeAll(async () => {
    app = await startTestApp(target);
    piece = await app.seed.unitId('H87');
    hour = await app.seed.unitId('HUR');
    me = await refs(await app.seed.tenant());
    them = await refs(await app.seed.tenant());
  });
  afterAll(() => app?.close());

  const api = (method: string, path: string, opts: { body?: unknown; token?: string } = {}) =>
    app.http(method, `/api/v2${path}`, { token: opts.token ?? me.tenant.user.token, body: opts.body });

  const newCollection = async (body: Record<string, unknown> = {}, r: Refs = me) => {
    const res = await api('POST', '/item-collections', {
      token: r.tenant.user.token,
      body: { client_account_id: r.tenant.account.id, collection_type: 'TEMPLATE', name: `Samling ${++n}`, ...body },
    });
    expect(res.status).toBe(201);
    return res.body as { id: number; client_account_id: number; name: string | null; collection_type: string };
  };

  const entryBase = (r: Refs = me) => ({ quantity: '2', price: '100', unit_id: piece, tax_code_id: r.vat25 });

  const newEntry = async (collectionId: number, body: Record<string, unknown> = {}, r: Refs = me) => {
    const res = await api('POST', `/item-collections/${collectionId}/entries`, { token: r.tenant.user.token, body: { ...entryBase(r), ...body } });
    expect(res.status).toBe(201);
    return res.body as Record<string, any> & { id: number };
  };

  /** A document line that consumed the entry: the entry is "used" from then on. */
  const markUsed = async (entryId: number, r: Refs = me) => {
    const doc = await app.db.prisma.document.create({
      data: { clientAccountId: r.tenant.account.id, documentType: 'ARINV', documentNumber: `F-${++n}`, documentDate: new Date('2026-03-01') },
    });
    return app.db.prisma.documentLine.create({
      data: {
        documentId: doc.id, lineId: 1, itemId: r.item, itemNo: 'V-1', itemName: 'Vare V-1', description: 'Fra samling', price: '100', currencyCode: 'NOK',
        quantity: '2', unitId: piece, taxCodeId: r.vat25, taxRate: '25', taxAmountLc: '50', taxAmountFc: '50', totalLc: '250', totalFc: '250', itemCollectionEntryId: entryId,
      },
    });
  };

  describe('POST /item-collections', () => {
    it('"Body: client_account_id (required), collection_type (required), name (optional). 201" with the collection', async () => {
      const res = await api('POST', '/item-collections', { body: { client_account_id: me.tenant.account.id, collection_type: 'CART', name: 'Handlekurv' } });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        client_account_id: me.tenant.account.id,
        name: 'Handlekurv',
        collection_type: 'CART',
        created_at: expect.stringMatching(ISO_INSTANT),
        created_by_id: me.tenant.user.id,
        updated_at: expect.stringMatching(ISO_INSTANT),
        updated_by_id: me.tenant.user.id,
        entries: [],
      });
      expect(res.headers.get('x-request-id')).toBeTruthy();
    });

    it('"name (optional)": omitted gives null', async () => {
      const res = await api('POST', '/item-collections', { body: { client_account_id: me.tenant.account.id, collection_type: 'ORDER' } });
      expect(res).toMatchObject({ status: 201, body: { name: null, collection_type: 'ORDER' } });
    });

    it.each([['TEMPLATE'], ['CART'], ['ORDER']])('"collection_type (TEMPLATE, CART, ORDER)": %s is accepted', async (type) => {
      expect((await newCollection({ collection_type: type })).collection_type).toBe(type);
    });

    it.each([['client_account_id'], ['collection_type']])('400 {error, status} when required field %s is missing', async (field) => {
      const body: Record<string, unknown> = { client_account_id: me.tenant.account.id, collection_type: 'CART' };
      delete body[field];
      const res = await api('POST', '/item-collections', { body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining(field), status: 400 });
    });

    it.each([
      ['collection_type', 'WISHLIST'],
      ['client_account_id', 'abc'],
      ['name', 'x'.repeat(151)],
      ['name', 42],
    ])('400 for a wrong value of %s (%j); "name (max 150)"', async (field, value) => {
      const res = await api('POST', '/item-collections', { body: { client_account_id: me.tenant.account.id, collection_type: 'CART', [field]: value } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining(field), status: 400 });
    });

    it('a name of exactly 150 characters is accepted', async () => {
      expect((await newCollection({ name: 'x'.repeat(150) })).name).toHaveLength(150);
    });

    it('400 for an unknown field in the body', async () => {
      const res = await api('POST', '/item-collections', { body: { client_account_id: me.tenant.account.id, collection_type: 'CART', colour: 'red' } });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining('colour'), status: 400 } });
    });

    it('"client_account_id must be one of the caller\'s eligible client accounts; otherwise 403"', async () => {
      const res = await api('POST', '/item-collections', { body: { client_account_id: them.tenant.account.id, collection_type: 'CART' } });
      expect(res).toMatchObject({ status: 403, body: { error: expect.any(String), status: 403 } });
    });
  });

  describe('GET /item-collections', () => {
    let r: Refs;
    let template: { id: number }, cart: { id: number }, order: { id: number };
    beforeAll(async () => {
      r = await refs(await app.seed.tenant());
      template = await newCollection({ collection_type: 'TEMPLATE', name: 'Månedlig abonnement' }, r);
      cart = await newCollection({ collection_type: 'CART', name: 'Kurv for Kunde AS' }, r);
      order = await newCollection({ collection_type: 'ORDER', name: 'Ordre 1001' }, r);
      await newEntry(template.id, { item_id: r.item, business_partner_id: r.partner }, r);
      await newEntry(template.id, {}, r);
    });
    const list = (qs: string, token = r.tenant.user.token) => api('GET', `/item-collections?client_account_id=${r.tenant.account.id}${qs ? `&${qs}` : ''}`, { token });
    const ids = async (qs: string) => {
      const res = await list(qs);
      expect(res.status).toBe(200);
      return (res.body.data as { id: number }[]).map((c) => c.id);
    };

    it('"Page-based lists return {data, meta: {page, pages, per_page, records}}"; per_page defaults to 100', async () => {
      const res = await list('');
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({ page: 1, pages: 1, per_page: 100, records: 3 });
      expect(res.body.data.map((c: { id: number }) => c.id)).toEqual([template.id, cart.id, order.id]);
      expect(res.body.data[0]).toEqual({
        id: template.id, client_account_id: r.tenant.account.id, name: 'Månedlig abonnement', collection_type: 'TEMPLATE',
        created_at: expect.stringMatching(ISO_INSTANT), created_by_id: r.tenant.user.id, updated_at: expect.stringMatching(ISO_INSTANT), updated_by_id: r.tenant.user.id,
      });
    });

    it('"collection_type (TEMPLATE, CART, ORDER; comma-separated)": one or several types (comma, semicolon or space)', async () => {
      expect(await ids('collection_type=CART')).toEqual([cart.id]);
      expect(await ids('collection_type=TEMPLATE,ORDER')).toEqual([template.id, order.id]);
      expect(await ids('collection_type=CART;ORDER')).toEqual([cart.id, order.id]);
      expect(await ids('collection_type=template%20cart')).toEqual([template.id, cart.id]);
    });

    it('"name" filters by part of the name, case-insensitively', async () => {
      expect(await ids('name=KURV')).toEqual([cart.id]);
      expect(await ids('name=ordre%201001')).toEqual([order.id]);
      expect(await ids('name=nothing-like-it')).toEqual([]);
    });

    it('"with (entries, entries.item, …)": no relations by default; with=entries embeds the entries', async () => {
      const plain = await list('collection_type=TEMPLATE');
      expect(plain.body.data[0]).not.toHaveProperty('entries');
      const withEntries = await list('collection_type=TEMPLATE&with=entries');
      expect(withEntries.body.data[0].entries).toHaveLength(2);
      expect(withEntries.body.data[0].entries[0]).not.toHaveProperty('item');
    });

    it('with=entries.item,entries.business_partner embeds the entries and those relations (entries implied)', async () => {
      const res = await list('collection_type=TEMPLATE&with=entries.item,entries.business_partner');
      const [withRefs, bare] = res.body.data[0].entries;
      expect(withRefs.item).toMatchObject({ id: r.item, item_no: 'V-1', price: '99.500000' });
      expect(withRefs.business_partner).toEqual({ id: r.partner, name: 'Kunde AS', organization_number: '923609016', email: 'post@kunde.example', is_customer: true, is_supplier: false });
      expect(bare.item).toBeNull();
      expect(bare.business_partner).toBeNull();
      expect(withRefs).not.toHaveProperty('unit');
    });

    it('every documented with value is accepted: entries, entries.item, entries.unit, entries.tax_code_details, entries.business_partner, entries.document_lines', async () => {
      const res = await list('with=entries,entries.item,entries.unit,entries.tax_code_details,entries.business_partner,entries.document_lines&collection_type=TEMPLATE');
      expect(res.status).toBe(200);
      const entry = res.body.data[0].entries[0];
      expect(entry.unit).toMatchObject({ id: piece, un_ece_rec_20_code: 'H87' });
      expect(entry.tax_code_details).toMatchObject({ id: r.vat25, code: '3', rate: '25.00' });
      expect(entry.document_lines).toEqual([]);
    });

    it('"page (1), per_page (100, max 100)": page 2 of per_page 2; per_page above 100 is capped', async () => {
      const res = await list('page=2&per_page=2');
      expect(res.body.meta).toEqual({ page: 2, pages: 2, per_page: 2, records: 3 });
      expect(res.body.data.map((c: { id: number }) => c.id)).toEqual([order.id]);
      expect((await list('per_page=1000')).body.meta.per_page).toBe(100);
    });

    it.each([
      ['no client_account_id', 'none'],
      ['a non-integer client_account_id', 'client_account_id=abc'],
      ['an unknown collection_type', 'collection_type=WISHLIST'],
      ['an unknown with relation', 'with=entries.owner'],
      ['a relation of the entries list without its prefix', 'with=item'],
      ['page=0', 'page=0'],
      ['per_page=abc', 'per_page=abc'],
    ])('400 for %s', async (_name, qs) => {
      const path = qs === 'none' ? '/item-collections' : qs.startsWith('client_account_id') ? `/item-collections?${qs}` : `/item-collections?client_account_id=${r.tenant.account.id}&${qs}`;
      const res = await api('GET', path, { token: r.tenant.user.token });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String), status: 400 });
    });

    it('"client_account_id (required; 403 if not eligible)"', async () => {
      const res = await list('', me.tenant.user.token);
      expect(res).toMatchObject({ status: 403, body: { error: expect.any(String), status: 403 } });
    });
  });

  describe('GET /item-collections/{id}', () => {
    it('"Entries included by default" (without their relations)', async () => {
      const c = await newCollection();
      const e = await newEntry(c.id, { item_id: me.item });
      const res = await api('GET', `/item-collections/${c.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: c.id, client_account_id: me.tenant.account.id, collection_type: 'TEMPLATE' });
      expect(res.body.entries).toEqual([e]);
      expect(res.body.entries[0]).not.toHaveProperty('item');
    });

    it('"query with overrides": with=entries.unit embeds entries with their unit; with= (empty) or another list leaves the entries out', async () => {
      const c = await newCollection();
      await newEntry(c.id, { unit_id: hour });
      const withUnit = await api('GET', `/item-collections/${c.id}?with=entries.unit`);
      expect(withUnit.body.entries[0].unit).toMatchObject({ id: hour, un_ece_rec_20_code: 'HUR' });
      expect(withUnit.body.entries[0]).not.toHaveProperty('item');
      const empty = await api('GET', `/item-collections/${c.id}?with=`);
      expect(empty.status).toBe(200);
      expect(empty.body).not.toHaveProperty('entries');
    });

    it('entries are all listed, used ones included, in id order', async () => {
      const c = await newCollection();
      const a = await newEntry(c.id);
      const b = await newEntry(c.id);
      await markUsed(a.id);
      const res = await api('GET', `/item-collections/${c.id}?with=entries.document_lines`);
      expect(res.body.entries.map((e: { id: number }) => e.id)).toEqual([a.id, b.id]);
      expect(res.body.entries[0].document_lines).toHaveLength(1);
    });

    it('404 for a collection that does not exist; 400 for a non-numeric id; 400 for an unknown with', async () => {
      expect(await api('GET', '/item-collections/99999999')).toMatchObject({ status: 404, body: { error: 'Item collection not found', status: 404 } });
      expect((await api('GET', '/item-collections/abc')).status).toBe(400);
      const c = await newCollection();
      expect(await api('GET', `/item-collections/${c.id}?with=entries,owner`)).toMatchObject({ status: 400, body: { error: expect.stringContaining('owner'), status: 400 } });
    });

    it("403 for another client account's collection", async () => {
      const theirs = await newCollection({}, them);
      expect(await api('GET', `/item-collections/${theirs.id}`)).toMatchObject({ status: 403, body: { status: 403 } });
    });
  });

  describe('POST /item-collections/{id}/entries', () => {
    it('"quantity, price, unit_id, tax_code_id required … 201 with the entry"; decimals have six places, recurring_interval stored null', async () => {
      const c = await newCollection();
      const res = await api('POST', `/item-collections/${c.id}/entries`, { body: { quantity: '1.5', price: 249, unit_id: piece, tax_code_id: me.vat25 } });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        item_collection_id: c.id,
        item_id: null,
        description: null,
        quantity: '1.500000',
        price: '249.000000',
        currency_code: null,
        unit_id: piece,
        tax_code_id: me.vat25,
        business_partner_id: null,
        project_id: null,
        recurring_start_date: null,
        recurring_end_date: null,
        recurring_terms: null,
        recurring_interval: null,
        refund_policy: null,
        trial_end_date: null,
        created_at: expect.stringMatching(ISO_INSTANT),
        created_by_id: me.tenant.user.id,
        updated_at: expect.stringMatching(ISO_INSTANT),
        updated_by_id: me.tenant.user.id,
      });
    });

    it('accepts every optional field: item_id, description, currency_code, business_partner_id, project_id, recurring_*, refund_policy, trial_end_date', async () => {
      const c = await newCollection();
      const e = await newEntry(c.id, {
        item_id: me.item,
        description: 'Abonnement, kvartalsvis',
        currency_code: 'EUR',
        business_partner_id: me.partner,
        project_id: me.project,
        recurring_start_date: '2026-01-01',
        recurring_end_date: '2026-12-31',
        recurring_terms: 'IN_ADVANCE',
        recurring_interval: 3,
        refund_policy: 'PRORATED',
        trial_end_date: '2026-01-31',
      });
      expect(e).toMatchObject({
        item_id: me.item, description: 'Abonnement, kvartalsvis', currency_code: 'EUR', business_partner_id: me.partner, project_id: me.project,
        recurring_start_date: '2026-01-01', recurring_end_date: '2026-12-31', recurring_terms: 'IN_ADVANCE', recurring_interval: 3,
        refund_policy: 'PRORATED', trial_end_date: '2026-01-31',
      });
    });

    it.each([['IN_ADVANCE'], ['IN_ARREARS']])('"recurring_terms (IN_ADVANCE or IN_ARREARS)": %s', async (terms) => {
      const c = await newCollection();
      expect((await newEntry(c.id, { recurring_terms: terms })).recurring_terms).toBe(terms);
    });

    it.each([['NO_REFUND'], ['PRORATED'], ['FULL_REFUND']])('"refund_policy (NO_REFUND, PRORATED, FULL_REFUND)": %s', async (policy) => {
      const c = await newCollection();
      expect((await newEntry(c.id, { refund_policy: policy })).refund_policy).toBe(policy);
    });

    it.each([[1], [3], [6], [12], [24], [36]])('"recurring_interval (integer months; 1 monthly, 3 quarterly, 6 half-yearly, 12 yearly)": %i', async (months) => {
      const c = await newCollection();
      expect((await newEntry(c.id, { recurring_interval: months })).recurring_interval).toBe(months);
    });

    it('quantity and price keep their exact decimals (Decimal(18,6)); negative quantities are allowed (credits)', async () => {
      const c = await newCollection();
      const e = await newEntry(c.id, { quantity: '-0.000001', price: '123456789012.123456' });
      expect(e).toMatchObject({ quantity: '-0.000001', price: '123456789012.123456' });
    });

    it('"currency_code (ISO 4217)" is stored in capitals', async () => {
      const c = await newCollection();
      expect((await newEntry(c.id, { currency_code: 'sek' })).currency_code).toBe('SEK');
    });

    it.each([['quantity'], ['price'], ['unit_id'], ['tax_code_id']])('400 {error, status} when required field %s is missing', async (field) => {
      const c = await newCollection();
      const body: Record<string, unknown> = entryBase();
      delete body[field];
      const res = await api('POST', `/item-collections/${c.id}/entries`, { body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining(field), status: 400 });
    });

    it.each([
      ['quantity', 'abc'],
      ['quantity', '1.1234567'],
      ['price', '12.0000001'],
      ['price', '1234567890123.5'],
      ['unit_id', 'x'],
      ['tax_code_id', 1.5],
      ['item_id', 'V-1'],
      ['description', 'x'.repeat(1001)],
      ['currency_code', 'XYZ'],
      ['currency_code', 'KRONER'],
      ['recurring_start_date', '2026-02-30'],
      ['recurring_end_date', '31.12.2026'],
      ['trial_end_date', 20260101],
      ['recurring_terms', 'WEEKLY'],
      ['recurring_interval', 0],
      ['recurring_interval', 1.5],
      ['recurring_interval', '3'],
      ['refund_policy', 'SOME'],
    ])('400 naming the field for a wrong value of %s (%j)', async (field, value) => {
      const c = await newCollection();
      const res = await api('POST', `/item-collections/${c.id}/entries`, { body: { ...entryBase(), [field]: value } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining(field), status: 400 });
    });

    it('a description of exactly 1000 characters is accepted', async () => {
      const c = await newCollection();
      expect((await newEntry(c.id, { description: 'x'.repeat(1000) })).description).toHaveLength(1000);
    });

    it('400 when recurring_end_date is before recurring_start_date; the same day is accepted', async () => {
      const c = await newCollection();
      const res = await api('POST', `/item-collections/${c.id}/entries`, { body: { ...entryBase(), recurring_start_date: '2026-06-01', recurring_end_date: '2026-05-31' } });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining('recurring_end_date'), status: 400 } });
      expect((await newEntry(c.id, { recurring_start_date: '2026-06-01', recurring_end_date: '2026-06-01' })).recurring_end_date).toBe('2026-06-01');
    });

    it.each([
      ['item_id', (r: Refs) => r.item],
      ['tax_code_id', (r: Refs) => r.vat25],
      ['business_partner_id', (r: Refs) => r.partner],
      ['project_id', (r: Refs) => r.project],
    ])("400 naming %s when it belongs to another client account than the collection's", async (field, pick) => {
      const c = await newCollection();
      const res = await api('POST', `/item-collections/${c.id}/entries`, { body: { ...entryBase(), [field]: pick(them) } });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining(field), status: 400 } });
    });

    it('400 naming unit_id for a unit that does not exist, and item_id for an item that does not exist', async () => {
      const c = await newCollection();
      const unit = await api('POST', `/item-collections/${c.id}/entries`, { body: { ...entryBase(), unit_id: 999999 } });
      expect(unit).toMatchObject({ status: 400, body: { error: expect.stringContaining('unit_id'), status: 400 } });
      const item = await api('POST', `/item-collections/${c.id}/entries`, { body: { ...entryBase(), item_id: 999999 } });
      expect(item).toMatchObject({ status: 400, body: { error: expect.stringContaining('item_id'), status: 400 } });
    });

    it('400 for an unknown field in the body', async () => {
      const c = await newCollection();
      const res = await api('POST', `/item-collections/${c.id}/entries`, { body: { ...entryBase(), discount: '10' } });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining('discount'), status: 400 } });
    });

    it('item_collection_id in the body may repeat the path\'s collection; another collection is 400', async () => {
      const c = await newCollection();
      const d = await newCollection();
      expect((await newEntry(c.id, { item_collection_id: c.id })).item_collection_id).toBe(c.id);
      const res = await api('POST', `/item-collections/${c.id}/entries`, { body: { ...entryBase(), item_collection_id: d.id } });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining('item_collection_id'), status: 400 } });
    });

    it("404 for a collection that does not exist; 403 for another client account's collection", async () => {
      expect(await api('POST', '/item-collections/99999999/entries', { body: entryBase() })).toMatchObject({ status: 404, body: { status: 404 } });
      const theirs = await newCollection({}, them);
      expect(await api('POST', `/item-collections/${theirs.id}/entries`, { body: entryBase(them) })).toMatchObject({ status: 403, body: { status: 403 } });
    });
  });

  describe('GET /item-collections/{id}/entries', () => {
    let r: Refs;
    let c: { id: number };
    let plain: { id: number }, withItem: { id: number }, withItem2: { id: number }, used: { id: number };
    let lineId: number;
    beforeAll(async () => {
      r = await refs(await app.seed.tenant());
      c = await newCollection({}, r);
      plain = await newEntry(c.id, { price: '30' }, r);
      withItem = await newEntry(c.id, { item_id: r.item, project_id: r.project, business_partner_id: r.partner, price: '10' }, r);
      withItem2 = await newEntry(c.id, { item_id: r.item2, project_id: r.project2, price: '20' }, r);
      used = await newEntry(c.id, { item_id: r.item, project_id: r.project, price: '40' }, r);
      lineId = (await markUsed(used.id, r)).id;
    });
    const list = (qs: string, token = r.tenant.user.token) => api('GET', `/item-collections/${c.id}/entries${qs ? `?${qs}` : ''}`, { token });
    const ids = async (qs: string) => {
      const res = await list(qs);
      expect(res.status).toBe(200);
      return (res.body.data as { id: number }[]).map((e) => e.id);
    };

    it('"Page-based lists return {data, meta: {page, pages, per_page, records}}"; per_page defaults to 100', async () => {
      const res = await list('');
      expect(res.body.meta).toEqual({ page: 1, pages: 1, per_page: 100, records: 3 });
      expect(res.body.data[0]).toMatchObject({ id: plain.id, item_collection_id: c.id, price: '30.000000' });
      expect(res.body.data[0]).not.toHaveProperty('item');
    });

    it('"include_used (boolean)": by default entries consumed by a document line are left out; include_used=true lists them', async () => {
      expect(await ids('')).toEqual([plain.id, withItem.id, withItem2.id]);
      expect(await ids('include_used=false')).toEqual([plain.id, withItem.id, withItem2.id]);
      expect(await ids('include_used=true')).toEqual([plain.id, withItem.id, withItem2.id, used.id]);
      expect((await list('include_used=true')).body.meta.records).toBe(4);
    });

    it('"item_id and project_id (comma-separated)" filter the entries', async () => {
      expect(await ids(`item_id=${r.item}`)).toEqual([withItem.id]);
      expect(await ids(`item_id=${r.item},${r.item2}`)).toEqual([withItem.id, withItem2.id]);
      expect(await ids(`item_id=${r.item}&include_used=true`)).toEqual([withItem.id, used.id]);
      expect(await ids(`project_id=${r.project2}`)).toEqual([withItem2.id]);
      expect(await ids(`project_id=${r.project};${r.project2}&item_id=${r.item2}`)).toEqual([withItem2.id]);
    });

    it('"with (item, unit, tax_code_details, business_partner, document_lines)" embeds the relations; business_partner null when unset', async () => {
      const res = await list(`include_used=true&with=item,unit,tax_code_details,business_partner,document_lines`);
      const byId = new Map((res.body.data as { id: number }[]).map((e) => [e.id, e as Record<string, any>]));
      expect(byId.get(withItem.id)).toMatchObject({
        item: {
          id: r.item, client_account_id: r.tenant.account.id, item_no: 'V-1', name: 'Vare V-1', item_type: 'ITEM', sales_unit_id: piece, stock_unit_id: null,
          tax_code_id: r.vat25, price: '99.500000', metadata: null, is_active: true, autonomy_level: null,
        },
        unit: { id: piece, symbol: expect.any(String), un_ece_rec_20_code: 'H87', un_ece_rec_21_code: null, description: expect.any(String) },
        tax_code_details: { id: r.vat25, code: '3', standard_tax_code: '3', name: expect.any(String), direction: 'OUTPUT', rate: '25.00', is_active: true },
        business_partner: { id: r.partner, name: 'Kunde AS', organization_number: '923609016', email: 'post@kunde.example', is_customer: true, is_supplier: false },
        document_lines: [],
      });
      expect(byId.get(plain.id)).toMatchObject({ item: null, business_partner: null });
      expect(byId.get(used.id)!.document_lines).toEqual([
        {
          id: lineId, document_id: expect.any(Number), line_id: 1, item_id: r.item, item_no: 'V-1', item_name: 'Vare V-1', description: 'Fra samling',
          price: '100.000000', currency_code: 'NOK', quantity: '2.000000', unit_id: piece, tax_code_id: r.vat25, tax_rate: '25.00',
          tax_amount_lc: '50.00', tax_amount_fc: '50.00', total_lc: '250.00', total_fc: '250.00', item_collection_entry_id: used.id,
        },
      ]);
    });

    it('"order_by": -price orders by price descending; default by id', async () => {
      expect(await ids('order_by=-price')).toEqual([plain.id, withItem2.id, withItem.id]);
      expect(await ids('order_by=price')).toEqual([withItem.id, withItem2.id, plain.id]);
    });

    it('"page (1), per_page (100, max 100)"', async () => {
      const res = await list('page=2&per_page=2');
      expect(res.body.meta).toEqual({ page: 2, pages: 2, per_page: 2, records: 3 });
      expect(res.body.data.map((e: { id: number }) => e.id)).toEqual([withItem2.id]);
      expect((await list('per_page=101')).body.meta.per_page).toBe(100);
    });

    it.each([
      ['a bad include_used', 'include_used=maybe'],
      ['a non-integer item_id', 'item_id=abc'],
      ['a non-integer project_id', 'project_id=1,x'],
      ['an unknown with relation', 'with=entries'],
      ['an unknown order_by field', 'order_by=colour'],
      ['page=0', 'page=0'],
    ])('400 for %s', async (_name, qs) => {
      const res = await list(qs);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String), status: 400 });
    });

    it("404 for a collection that does not exist; 403 for another client account's collection", async () => {
      expect(await api('GET', '/item-collections/99999999/entries')).toMatchObject({ status: 404, body: { status: 404 } });
      expect(await list('', me.tenant.user.token)).toMatchObject({ status: 403, body: { status: 403 } });
    });
  });

  describe('PUT /item-collections/{id}/entries/{entry_id}', () => {
    it('"202 with the entry"; omitted fields keep their value; updated_by_id is the caller', async () => {
      const c = await newCollection();
      const e = await newEntry(c.id, { description: 'Før', item_id: me.item, recurring_interval: 6 });
      const res = await api('PUT', `/item-collections/${c.id}/entries/${e.id}`, { body: { description: 'Etter', price: '150.25', tax_code_id: me.vat15 } });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        ...e,
        description: 'Etter',
        price: '150.250000',
        tax_code_id: me.vat15,
        updated_at: expect.stringMatching(ISO_INSTANT),
        updated_by_id: me.tenant.user.id,
      });
    });

    it('null clears an optional field: recurring_interval goes back to null (treated as 1), item_id to null', async () => {
      const c = await newCollection();
      const e = await newEntry(c.id, { item_id: me.item, recurring_interval: 12, currency_code: 'NOK' });
      const res = await api('PUT', `/item-collections/${c.id}/entries/${e.id}`, { body: { recurring_interval: null, item_id: null, currency_code: null } });
      expect(res).toMatchObject({ status: 202, body: { recurring_interval: null, item_id: null, currency_code: null } });
    });

    it('"item_collection_id cannot change": 400 for another value; the same value is accepted (a GET body can be sent back)', async () => {
      const c = await newCollection();
      const d = await newCollection();
      const e = await newEntry(c.id);
      const moved = await api('PUT', `/item-collections/${c.id}/entries/${e.id}`, { body: { item_collection_id: d.id } });
      expect(moved).toMatchObject({ status: 400, body: { error: expect.stringContaining('item_collection_id'), status: 400 } });
      const got = (await api('GET', `/item-collections/${c.id}/entries?with=item,unit,tax_code_details,business_partner,document_lines`)).body.data[0];
      const echoed = await api('PUT', `/item-collections/${c.id}/entries/${e.id}`, { body: { ...got, quantity: '7' } });
      expect(echoed).toMatchObject({ status: 202, body: { item_collection_id: c.id, quantity: '7.000000' } });
    });

    it.each([['quantity'], ['price'], ['unit_id'], ['tax_code_id']])('400 when required field %s is set to null', async (field) => {
      const c = await newCollection();
      const e = await newEntry(c.id);
      const res = await api('PUT', `/item-collections/${c.id}/entries/${e.id}`, { body: { [field]: null } });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining(field), status: 400 } });
    });

    it('400 when the new recurring_end_date is before the stored recurring_start_date', async () => {
      const c = await newCollection();
      const e = await newEntry(c.id, { recurring_start_date: '2026-03-01' });
      const res = await api('PUT', `/item-collections/${c.id}/entries/${e.id}`, { body: { recurring_end_date: '2026-02-28' } });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining('recurring_end_date'), status: 400 } });
    });

    it("400 naming the field for references of another client account; 400 for an unknown field", async () => {
      const c = await newCollection();
      const e = await newEntry(c.id);
      for (const [field, value] of [['item_id', them.item], ['tax_code_id', them.vat25], ['business_partner_id', them.partner], ['project_id', them.project]] as const) {
        const res = await api('PUT', `/item-collections/${c.id}/entries/${e.id}`, { body: { [field]: value } });
        expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining(field), status: 400 } });
      }
      expect((await api('PUT', `/item-collections/${c.id}/entries/${e.id}`, { body: { discount: 1 } })).status).toBe(400);
    });

    it('404 when the entry belongs to another collection, does not exist, or the collection does not exist', async () => {
      const c = await newCollection();
      const d = await newCollection();
      const e = await newEntry(c.id);
      expect(await api('PUT', `/item-collections/${d.id}/entries/${e.id}`, { body: { quantity: '1' } })).toMatchObject({ status: 404, body: { status: 404 } });
      expect((await api('PUT', `/item-collections/${c.id}/entries/99999999`, { body: { quantity: '1' } })).status).toBe(404);
      expect((await api('PUT', `/item-collections/99999999/entries/${e.id}`, { body: { quantity: '1' } })).status).toBe(404);
      expect((await api('GET', `/item-collections/${c.id}`)).body.entries[0].quantity).toBe('2.000000');
    });

    it("403 for an entry of another client account's collection", async () => {
      const theirs = await newCollection({}, them);
      const e = await newEntry(theirs.id, {}, them);
      expect(await api('PUT', `/item-collections/${theirs.id}/entries/${e.id}`, { body: { quantity: '1' } })).toMatchObject({ status: 403, body: { status: 403 } });
    });
  });

  describe('DELETE /item-collections/{id}/entries/{entry_id}', () => {
    it('"Permanently deletes; returns the entry with 200"', async () => {
      const c = await newCollection();
      const e = await newEntry(c.id, { description: 'Slettes' });
      const res = await api('DELETE', `/item-collections/${c.id}/entries/${e.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(e);
      expect((await api('GET', `/item-collections/${c.id}/entries?include_used=true`)).body.meta.records).toBe(0);
      expect(await app.db.prisma.itemCollectionEntry.findUnique({ where: { id: e.id } })).toBeNull();
      expect((await api('DELETE', `/item-collections/${c.id}/entries/${e.id}`)).status).toBe(404);
    });

    it('a used entry can be deleted: the document line keeps its data and loses the link', async () => {
      const c = await newCollection();
      const e = await newEntry(c.id);
      const line = await markUsed(e.id);
      const res = await api('DELETE', `/item-collections/${c.id}/entries/${e.id}?with=document_lines`);
      expect(res.status).toBe(200);
      expect(res.body.document_lines).toMatchObject([{ id: line.id, item_collection_entry_id: e.id }]);
      const after = await app.db.prisma.documentLine.findUniqueOrThrow({ where: { id: line.id } });
      expect(after).toMatchObject({ itemCollectionEntryId: null, description: 'Fra samling' });
    });

    it('404 when the entry belongs to another collection; 403 for another client account', async () => {
      const c = await newCollection();
      const d = await newCollection();
      const e = await newEntry(c.id);
      expect((await api('DELETE', `/item-collections/${d.id}/entries/${e.id}`)).status).toBe(404);
      const theirs = await newCollection({}, them);
      const te = await newEntry(theirs.id, {}, them);
      expect(await api('DELETE', `/item-collections/${theirs.id}/entries/${te.id}`)).toMatchObject({ status: 403, body: { status: 403 } });
      expect(await app.db.prisma.itemCollectionEntry.count({ where: { id: { in: [e.id, te.id] } } })).toBe(2);
    });
  });

  describe('authentication and scopes (spec 000 "Authentication")', () => {
    it('401 without a token', async () => {
      const res = await app.http('GET', `/api/v2/item-collections?client_account_id=${me.tenant.account.id}`);
      expect(res).toMatchObject({ status: 401, body: { status: 401 } });
    });

    it('a read-only token can read but gets 403 on POST, PUT and DELETE (insufficient_scope); nothing changes', async () => {
      const c = await newCollection();
      const e = await newEntry(c.id);
      const ro = me.tenant.user.readToken;
      expect((await api('GET', `/item-collections/${c.id}`, { token: ro })).status).toBe(200);
      expect((await api('GET', `/item-collections/${c.id}/entries`, { token: ro })).status).toBe(200);
      for (const [method, path, body] of [
        ['POST', '/item-collections', { client_account_id: me.tenant.account.id, collection_type: 'CART' }],
        ['POST', `/item-collections/${c.id}/entries`, entryBase()],
        ['PUT', `/item-collections/${c.id}/entries/${e.id}`, { quantity: '9' }],
        ['DELETE', `/item-collections/${c.id}/entries/${e.id}`, undefined],
      ] as const) {
        const res = await api(method, path, { token: ro, body });
        expect(res).toMatchObject({ status: 403, body: { error: expect.any(String), status: 403 } });
        expect(res.headers.get('www-authenticate')).toContain('insufficient_scope');
      }
      const after = await api('GET', `/item-collections/${c.id}`);
      expect(after.body.entries).toEqual([e]);
    });

    it('405 for a method the path does not document (no REST update or delete of a collection)', async () => {
      const c = await newCollection();
      expect((await api('DELETE', `/item-collections/${c.id}`)).status).toBe(405);
      expect((await api('PUT', `/item-collections/${c.id}`, { body: { name: 'x' } })).status).toBe(405);
    });
  });
});
