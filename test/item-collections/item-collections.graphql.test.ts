import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

const COLLECTION = 'id clientAccountId name collectionType createdById updatedById createdBy { email }';
const ENTRY = `id itemCollectionId clientAccountId itemId description quantity price currencyCode unitId taxCodeId businessPartnerId projectId
  recurringStartDate recurringEndDate recurringTerms recurringInterval effectiveRecurringInterval refundPolicy trialEndDate createdById updatedById`;

// The same rules as REST (spec 001 "Item collection and entry", "Item collections") through /graphql,
// plus what only GraphQL offers: updating and deleting a collection (entries cascade).
describe.each(targets())('item collections GraphQL (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let piece: number;
  let vat25: number;
  let item: number;
  let partner: number;
  let project: number;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
    piece = await app.seed.unitId('H87');
    vat25 = await t.taxCode('3');
    const prisma = app.db.prisma;
    item = (await prisma.item.create({ data: { clientAccountId: t.account.id, itemNo: 'G-1', name: 'Lisens', salesUnitId: piece, taxCodeId: vat25 } })).id;
    partner = (await prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kunde AS', isCustomer: true } })).id;
    project = (await prisma.project.create({ data: { clientAccountId: t.account.id, sequenceNumber: 1, name: 'Drift' } })).id;
  });
  afterAll(() => app?.close());

  const gql = (query: string, variables?: Record<string, unknown>, token = t.user.token) => app.gql(token, query, variables);

  const createCollection = async (input: Record<string, unknown> = {}, tenant = t) => {
    const res = await gql(`mutation($input: CreateItemCollectionInput!) { createItemCollection(input: $input) { ${COLLECTION} } }`, {
      input: { clientAccountId: tenant.account.id, collectionType: 'TEMPLATE', ...input },
    }, tenant.user.token);
    expect(res.errors).toBeUndefined();
    return res.data.createItemCollection as { id: number; name: string | null; collectionType: string };
  };

  const createEntry = async (itemCollectionId: number, input: Record<string, unknown> = {}, token = t.user.token) =>
    gql(`mutation($input: CreateItemCollectionEntryInput!) { createItemCollectionEntry(input: $input) { ${ENTRY} } }`, {
      input: { itemCollectionId, quantity: '1', price: '499', unitId: piece, taxCodeId: vat25, ...input },
    }, token);

  const markUsed = async (entryId: number) => {
    const doc = await app.db.prisma.document.create({ data: { clientAccountId: t.account.id, documentType: 'ARINV', documentDate: new Date('2026-04-01') } });
    return app.db.prisma.documentLine.create({
      data: { documentId: doc.id, lineId: 1, price: '499', currencyCode: 'NOK', quantity: '1', itemCollectionEntryId: entryId },
    });
  };

  it('createItemCollection, createItemCollectionEntry, itemCollection with entries and relations, updateItemCollectionEntry', async () => {
    const c = await createCollection({ name: 'Abonnement' });
    expect(c).toMatchObject({ name: 'Abonnement', collectionType: 'TEMPLATE', clientAccountId: t.account.id, createdById: t.user.id, createdBy: { email: t.user.email } });

    const created = await createEntry(c.id, {
      itemId: item, businessPartnerId: partner, projectId: project, description: 'Lisens', currencyCode: 'NOK',
      recurringStartDate: '2026-01-01', recurringTerms: 'IN_ARREARS', recurringInterval: 3, refundPolicy: 'FULL_REFUND', trialEndDate: '2026-01-14',
    });
    expect(created.errors).toBeUndefined();
    const entry = created.data.createItemCollectionEntry;
    expect(entry).toMatchObject({
      itemCollectionId: c.id, clientAccountId: t.account.id, itemId: item, quantity: '1.000000', price: '499.000000', currencyCode: 'NOK',
      recurringStartDate: '2026-01-01', recurringEndDate: null, recurringTerms: 'IN_ARREARS', recurringInterval: 3, effectiveRecurringInterval: 3,
      refundPolicy: 'FULL_REFUND', trialEndDate: '2026-01-14', createdById: t.user.id,
    });

    const read = await gql(`query($id: Int!) { itemCollection(id: $id) { id entries { id item { itemNo } unit { unEceRec20Code } taxCode { code rate }
      businessPartner { name } project { name } itemCollection { name } documentLines { id } } } }`, { id: c.id });
    expect(read.errors).toBeUndefined();
    expect(read.data.itemCollection.entries).toEqual([{
      id: entry.id, item: { itemNo: 'G-1' }, unit: { unEceRec20Code: 'H87' }, taxCode: { code: '3', rate: '25.00' },
      businessPartner: { name: 'Kunde AS' }, project: { name: 'Drift' }, itemCollection: { name: 'Abonnement' }, documentLines: [],
    }]);

    const updated = await gql(`mutation($id: Int!, $input: UpdateItemCollectionEntryInput!) { updateItemCollectionEntry(id: $id, input: $input) { ${ENTRY} } }`, {
      id: entry.id, input: { quantity: '2.5', recurringEndDate: '2026-12-31', businessPartnerId: null },
    });
    expect(updated.errors).toBeUndefined();
    expect(updated.data.updateItemCollectionEntry).toMatchObject({ quantity: '2.500000', recurringEndDate: '2026-12-31', businessPartnerId: null, description: 'Lisens' });

    const one = await gql(`query($id: Int!) { itemCollectionEntry(id: $id) { id quantity } }`, { id: entry.id });
    expect(one.data.itemCollectionEntry).toEqual({ id: entry.id, quantity: '2.500000' });
  });

  it('"recurring_interval … stored null when omitted and then treated as 1": recurringInterval null, effectiveRecurringInterval 1', async () => {
    const c = await createCollection();
    const res = await createEntry(c.id);
    expect(res.data.createItemCollectionEntry).toMatchObject({ recurringInterval: null, effectiveRecurringInterval: 1 });
    const back = await gql(`mutation($id: Int!) { updateItemCollectionEntry(id: $id, input: { recurringInterval: 12 }) { recurringInterval effectiveRecurringInterval } }`, {
      id: res.data.createItemCollectionEntry.id,
    });
    expect(back.data.updateItemCollectionEntry).toEqual({ recurringInterval: 12, effectiveRecurringInterval: 12 });
  });

  it('itemCollections filters by collectionTypes and name; itemCollectionEntries leaves used entries out unless includeUsed', async () => {
    const tenant = await app.seed.tenant();
    const tax = await tenant.taxCode('3');
    const mk = async (collectionType: string, name: string) => createCollection({ clientAccountId: tenant.account.id, collectionType, name }, tenant);
    const [a, b, c] = [await mk('TEMPLATE', 'Alfa'), await mk('CART', 'Beta'), await mk('ORDER', 'Gamma')];
    const page = await gql(`query($id: Int!) { itemCollections(clientAccountId: $id, collectionTypes: [CART, ORDER]) { nodes { id } meta { page pages perPage records } } }`, { id: tenant.account.id }, tenant.user.token);
    expect(page.data.itemCollections).toEqual({ nodes: [{ id: b.id }, { id: c.id }], meta: { page: 1, pages: 1, perPage: 100, records: 2 } });
    const named = await gql(`query($id: Int!) { itemCollections(clientAccountId: $id, name: "ALF") { nodes { id } } }`, { id: tenant.account.id }, tenant.user.token);
    expect(named.data.itemCollections.nodes).toEqual([{ id: a.id }]);

    const e1 = (await createEntry(a.id, { taxCodeId: tax }, tenant.user.token)).data.createItemCollectionEntry;
    const e2 = (await createEntry(a.id, { taxCodeId: tax }, tenant.user.token)).data.createItemCollectionEntry;
    const doc = await app.db.prisma.document.create({ data: { clientAccountId: tenant.account.id, documentType: 'ARINV', documentDate: new Date('2026-04-01') } });
    await app.db.prisma.documentLine.create({ data: { documentId: doc.id, lineId: 1, price: '1', currencyCode: 'NOK', quantity: '1', itemCollectionEntryId: e1.id } });
    const entries = (includeUsed?: boolean) =>
      gql(`query($id: Int!, $u: Boolean) { itemCollectionEntries(itemCollectionId: $id, includeUsed: $u) { nodes { id documentLines { lineId } } meta { records } } }`,
        includeUsed === undefined ? { id: a.id } : { id: a.id, u: includeUsed }, tenant.user.token);
    expect((await entries()).data.itemCollectionEntries).toEqual({ nodes: [{ id: e2.id, documentLines: [] }], meta: { records: 1 } });
    expect((await entries(true)).data.itemCollectionEntries.nodes).toEqual([{ id: e1.id, documentLines: [{ lineId: 1 }] }, { id: e2.id, documentLines: [] }]);
  });

  it('updateItemCollection changes name and type; clientAccountId cannot change (the same value is accepted)', async () => {
    const c = await createCollection({ collectionType: 'CART', name: 'Kurv' });
    const res = await gql(`mutation($id: Int!, $input: UpdateItemCollectionInput!) { updateItemCollection(id: $id, input: $input) { ${COLLECTION} } }`, {
      id: c.id, input: { clientAccountId: t.account.id, collectionType: 'ORDER', name: 'Ordre 7' },
    });
    expect(res.errors).toBeUndefined();
    expect(res.data.updateItemCollection).toMatchObject({ id: c.id, collectionType: 'ORDER', name: 'Ordre 7', updatedById: t.user.id });
    const moved = await gql(`mutation($id: Int!, $acc: Int!) { updateItemCollection(id: $id, input: { clientAccountId: $acc }) { id } }`, { id: c.id, acc: other.account.id });
    expect(moved.errors?.[0]).toMatchObject({ message: expect.stringContaining('clientAccountId'), extensions: { code: 'common.validation_error' } });
    const nulled = await gql(`mutation($id: Int!) { updateItemCollection(id: $id, input: { collectionType: null }) { id } }`, { id: c.id });
    expect(nulled.errors?.[0].extensions).toMatchObject({ code: 'common.validation_error' });
  });

  it('"Deleting a collection removes all its entries": deleteItemCollection returns the collection as it was; its entries are gone, consuming lines unlinked', async () => {
    const c = await createCollection({ name: 'Slettes' });
    const e1 = (await createEntry(c.id)).data.createItemCollectionEntry;
    const e2 = (await createEntry(c.id)).data.createItemCollectionEntry;
    const line = await markUsed(e1.id);
    const res = await gql(`mutation($id: Int!) { deleteItemCollection(id: $id) { id name entries { id documentLines { id } } } }`, { id: c.id });
    expect(res.errors).toBeUndefined();
    expect(res.data.deleteItemCollection).toEqual({ id: c.id, name: 'Slettes', entries: [{ id: e1.id, documentLines: [{ id: line.id }] }, { id: e2.id, documentLines: [] }] });
    expect(await app.db.prisma.itemCollection.findUnique({ where: { id: c.id } })).toBeNull();
    expect(await app.db.prisma.itemCollectionEntry.count({ where: { id: { in: [e1.id, e2.id] } } })).toBe(0);
    expect((await app.db.prisma.documentLine.findUniqueOrThrow({ where: { id: line.id } })).itemCollectionEntryId).toBeNull();
    const gone = await gql(`query($id: Int!) { itemCollectionEntry(id: $id) { id } }`, { id: e2.id });
    expect(gone.errors?.[0].extensions).toMatchObject({ code: 'common.not_found' });
    const again = await gql(`mutation($id: Int!) { deleteItemCollection(id: $id) { id } }`, { id: c.id });
    expect(again.errors?.[0].extensions).toMatchObject({ code: 'common.not_found' });
  });

  it('deleteItemCollectionEntry permanently deletes one entry and returns it; with itemCollectionId it must belong to that collection', async () => {
    const c = await createCollection();
    const d = await createCollection();
    const e = (await createEntry(c.id, { description: 'Borte' })).data.createItemCollectionEntry;
    const wrong = await gql(`mutation($id: Int!, $c: Int) { deleteItemCollectionEntry(id: $id, itemCollectionId: $c) { id } }`, { id: e.id, c: d.id });
    expect(wrong.errors?.[0].extensions).toMatchObject({ code: 'common.not_found' });
    const res = await gql(`mutation($id: Int!, $c: Int) { deleteItemCollectionEntry(id: $id, itemCollectionId: $c) { id description } }`, { id: e.id, c: c.id });
    expect(res.data.deleteItemCollectionEntry).toEqual({ id: e.id, description: 'Borte' });
    expect(await app.db.prisma.itemCollectionEntry.findUnique({ where: { id: e.id } })).toBeNull();
  });

  it('updateItemCollectionEntry: itemCollectionId in the input is immutable; the itemCollectionId argument scopes the entry (404 elsewhere)', async () => {
    const c = await createCollection();
    const d = await createCollection();
    const e = (await createEntry(c.id)).data.createItemCollectionEntry;
    const moved = await gql(`mutation($id: Int!, $c: Int!) { updateItemCollectionEntry(id: $id, input: { itemCollectionId: $c }) { id } }`, { id: e.id, c: d.id });
    expect(moved.errors?.[0]).toMatchObject({ message: expect.stringContaining('itemCollectionId'), extensions: { code: 'common.validation_error' } });
    const same = await gql(`mutation($id: Int!, $c: Int!) { updateItemCollectionEntry(id: $id, input: { itemCollectionId: $c, price: "5" }) { price } }`, { id: e.id, c: c.id });
    expect(same.data.updateItemCollectionEntry).toEqual({ price: '5.000000' });
    const scoped = await gql(`mutation($id: Int!, $c: Int!) { updateItemCollectionEntry(id: $id, itemCollectionId: $c, input: { price: "6" }) { price } }`, { id: e.id, c: d.id });
    expect(scoped.errors?.[0].extensions).toMatchObject({ code: 'common.not_found' });
  });

  it('validation errors carry extensions.code common.validation_error and name the field', async () => {
    const c = await createCollection();
    const theirItem = (await app.db.prisma.item.create({ data: { clientAccountId: other.account.id, itemNo: 'X', salesUnitId: piece, taxCodeId: await other.taxCode('3') } })).id;
    for (const [field, input] of [
      ['itemId', { itemId: theirItem }],
      ['recurringInterval', { recurringInterval: 0 }],
      ['recurringEndDate', { recurringStartDate: '2026-05-02', recurringEndDate: '2026-05-01' }],
      ['price', { price: '0.0000001' }],
      ['currencyCode', { currencyCode: 'ABC' }],
    ] as const) {
      const res = await createEntry(c.id, input);
      expect(res.errors?.[0]).toMatchObject({ message: expect.stringContaining(field), extensions: { code: 'common.validation_error' } });
    }
    const longName = await gql(`mutation($acc: Int!, $name: String) { createItemCollection(input: { clientAccountId: $acc, collectionType: CART, name: $name }) { id } }`, {
      acc: t.account.id, name: 'x'.repeat(151),
    });
    expect(longName.errors?.[0].extensions).toMatchObject({ code: 'common.validation_error' });
  });

  it("another account's collection and entry are forbidden (common.forbidden); missing ones are common.not_found", async () => {
    const theirs = await createCollection({}, other);
    const theirEntry = (await createEntry(theirs.id, { taxCodeId: await other.taxCode('3') }, other.user.token)).data.createItemCollectionEntry;
    for (const [query, variables] of [
      ['query($id: Int!) { itemCollection(id: $id) { id } }', { id: theirs.id }],
      ['query($id: Int!) { itemCollectionEntry(id: $id) { id } }', { id: theirEntry.id }],
      ['query($id: Int!) { itemCollectionEntries(itemCollectionId: $id) { meta { records } } }', { id: theirs.id }],
      ['query($id: Int!) { itemCollections(clientAccountId: $id) { meta { records } } }', { id: other.account.id }],
      ['mutation($id: Int!) { deleteItemCollection(id: $id) { id } }', { id: theirs.id }],
      ['mutation($id: Int!) { deleteItemCollectionEntry(id: $id) { id } }', { id: theirEntry.id }],
      ['mutation($id: Int!) { updateItemCollection(id: $id, input: { name: "mine" }) { id } }', { id: theirs.id }],
    ] as const) {
      const res = await gql(query, variables);
      expect(res.errors?.[0].extensions, query).toMatchObject({ code: 'common.forbidden' });
    }
    expect(await app.db.prisma.itemCollection.count({ where: { id: theirs.id } })).toBe(1);
    const missing = await gql('query { itemCollection(id: 99999999) { id } }');
    expect(missing.errors?.[0].extensions).toMatchObject({ code: 'common.not_found' });
  });

  it('a read-only token can query but cannot run mutations (insufficient_scope)', async () => {
    const c = await createCollection();
    const q = await gql('query($id: Int!) { itemCollection(id: $id) { id } }', { id: c.id }, t.user.readToken);
    expect(q.errors).toBeUndefined();
    for (const m of [
      `mutation { deleteItemCollection(id: ${c.id}) { id } }`,
      `mutation { updateItemCollection(id: ${c.id}, input: { name: "ro" }) { id } }`,
      `mutation { createItemCollection(input: { clientAccountId: ${t.account.id}, collectionType: CART }) { id } }`,
    ]) {
      const res = await gql(m, undefined, t.user.readToken);
      expect(res.errors?.[0].extensions).toMatchObject({ code: 'insufficient_scope' });
    }
    expect(await app.db.prisma.itemCollection.count({ where: { id: c.id } })).toBe(1);
  });
});
