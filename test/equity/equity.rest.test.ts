import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { randomOrganizationNumber, type Tenant } from '../support/seed.ts';
import { company, osloTodayText, type Company } from './fixtures.ts';

// spec 002 "Equity transaction" (fields, share classes, transaction types) and "Equity" (every
// endpoint, body and rule): "every transaction creates balanced entries; quantities positive;
// transfers, buybacks, retirements and splits check sufficient shares (400 body {error:
// 'Insufficient shares: ...', status: 400}); concurrent transactions are serialized by locking; cost
// basis uses weighted average; no transfer or buyback between the same entity. Errors 400, 403, 404."

const ENTRY_KEYS = [
  'id',
  'client_account_id',
  'transaction_date',
  'transaction_type',
  'transaction_group_id',
  'business_partner_id',
  'share_class',
  'quantity',
  'price_per_share',
  'notes',
  'split_ratio_numerator',
  'split_ratio_denominator',
  'created_at',
  'created_by_id',
  'updated_at',
  'updated_by_id',
].sort();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type EntryBody = { id: number; transaction_group_id: string; business_partner_id: number; quantity: number; transaction_type: string; share_class: string; transaction_date: string };

describe.each(targets())('equity REST (%s)', (target) => {
  let app: TestApp;
  let stranger: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    stranger = await app.seed.tenant();
  });
  afterAll(() => app?.close());

  /** the entries of the client account, in the list's order */
  const entries = async (c: Company, qs = ''): Promise<EntryBody[]> => {
    const res = await c.get(`transactions?client_account_id=${c.t.account.id}${qs}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  };
  const positions = async (c: Company, qs = '') => {
    const res = await c.get(`positions?client_account_id=${c.t.account.id}${qs}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.positions as { business_partner_id: number; share_class: string; quantity: number; cost_basis: string }[];
  };
  const issue = async (c: Company, partner: number, quantity: number, extra: Record<string, unknown> = {}) => {
    const res = await c.post('issue', { business_partner_id: partner, share_class: 'COMMON', quantity, ...extra });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as EntryBody;
  };

  describe('value lists', () => {
    it('"GET /equity/share-classes {share_classes: [{value, label}]}": exactly the spec\'s classes in its order', async () => {
      const c = await company(app);
      const res = await c.get('share-classes');
      expect(res.status).toBe(200);
      expect(res.body.share_classes.map((x: { value: string }) => x.value)).toEqual(['COMMON', 'PREFERRED', 'SERIES_A', 'SERIES_B', 'SERIES_C', 'SEED', 'CONVERTIBLE_NOTE', 'SAFE']);
      for (const x of res.body.share_classes) expect(Object.keys(x).sort()).toEqual(['label', 'value']);
      expect(res.body.share_classes[0]).toEqual({ value: 'COMMON', label: 'Common shares' });
    });

    it('"GET /equity/transaction-types {transaction_types: [{value, label}]}": exactly the spec\'s types', async () => {
      const c = await company(app);
      const res = await c.get('transaction-types');
      expect(res.status).toBe(200);
      expect(res.body.transaction_types).toEqual([
        { value: 'ISSUANCE', label: 'Issuance' },
        { value: 'TRANSFER', label: 'Transfer' },
        { value: 'BUYBACK', label: 'Buyback' },
        { value: 'RETIREMENT', label: 'Retirement' },
        { value: 'SPLIT', label: 'Split' },
        { value: 'CONVERSION', label: 'Conversion' },
      ]);
    });
  });

  describe('POST /equity/transactions/issue', () => {
    it('"201 with the shareholder\'s entry": every field of "Equity transaction", quantity +q, a group UUID', async () => {
      const c = await company(app);
      const ada = await c.partner('Ada');
      const res = await c.post('issue', { business_partner_id: ada, share_class: 'SERIES_A', quantity: 1000, price_per_share: '12.5', transaction_date: '2026-03-01', notes: 'Stiftelse' });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(ENTRY_KEYS);
      expect(res.body).toEqual({
        id: expect.any(Number),
        client_account_id: c.t.account.id,
        transaction_date: '2026-03-01',
        transaction_type: 'ISSUANCE',
        transaction_group_id: expect.stringMatching(UUID),
        business_partner_id: ada,
        share_class: 'SERIES_A',
        quantity: 1000,
        price_per_share: '12.500000',
        notes: 'Stiftelse',
        split_ratio_numerator: null,
        split_ratio_denominator: null,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        created_by_id: c.t.user.id,
        updated_at: expect.any(String),
        updated_by_id: c.t.user.id,
      });
      const group = (await entries(c)).filter((e) => e.transaction_group_id === res.body.transaction_group_id);
      expect(group.map((e) => e.quantity)).toEqual([1000]);
    });

    it('"transaction_date (default today)": Europe/Oslo\'s date; price_per_share and notes optional (null)', async () => {
      const c = await company(app);
      const res = await c.post('issue', { business_partner_id: await c.partner('Ada'), share_class: 'COMMON', quantity: 5 });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ transaction_date: osloTodayText(), price_per_share: null, notes: null });
    });

    it('a client account holds at most 2147483647 shares in all (quantities are 32-bit integers): an issue or split beyond is a 400', async () => {
      const c = await company(app);
      const [a, b] = [await c.partner('Ada'), await c.partner('Bo')];
      await issue(c, a, 2_147_483_000);
      expect(await c.post('issue', { business_partner_id: b, share_class: 'SEED', quantity: 648 })).toMatchObject({
        status: 400,
        body: { error: 'The client account would have 2147483648 shares in all; at most 2147483647 are supported', status: 400 },
      });
      expect((await c.post('issue', { business_partner_id: b, share_class: 'SEED', quantity: 647 })).status).toBe(201);
      expect((await c.post('split', { business_partner_id: b, share_class: 'SEED', old_quantity: 647, new_quantity: 648 })).status).toBe(400);
      expect((await c.post('split', { business_partner_id: b, share_class: 'SEED', old_quantity: 647, new_quantity: 1 })).status).toBe(201);
      const cap = await c.get(`cap-table?client_account_id=${c.t.account.id}&company_business_partner_id=${c.self}`);
      expect(cap.body.total_shares).toBe(2_147_483_001);
    });

    it('notes of 1000 characters are kept; empty notes are null', async () => {
      const c = await company(app);
      const a = await c.partner('Ada');
      expect((await issue(c, a, 1, { notes: 'n'.repeat(1000) }) as unknown as { notes: string }).notes).toHaveLength(1000);
      expect((await issue(c, a, 1, { notes: '' }) as unknown as { notes: null }).notes).toBeNull();
    });

    it('the company itself cannot subscribe its own shares: 400', async () => {
      const c = await company(app);
      const res = await c.post('issue', { business_partner_id: c.self, share_class: 'COMMON', quantity: 5 });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^business_partner_id: is the company itself/), status: 400 } });
    });
  });

  describe('every write: bodies and refusals', () => {
    // The documented bodies, each complete; rows below remove or spoil one field.
    const bodies = (c: Company, a: number, b: number): Record<string, Record<string, unknown>> => ({
      issue: { business_partner_id: a, share_class: 'COMMON', quantity: 1 },
      transfer: { from_business_partner_id: a, to_business_partner_id: b, share_class: 'COMMON', quantity: 1 },
      buyback: { from_business_partner_id: a, company_business_partner_id: c.self, share_class: 'COMMON', quantity: 1 },
      retire: { company_business_partner_id: c.self, share_class: 'COMMON', quantity: 1 },
      split: { business_partner_id: a, share_class: 'COMMON', old_quantity: 10, new_quantity: 20 },
    });
    const REQUIRED = [
      ['issue', 'client_account_id'], ['issue', 'business_partner_id'], ['issue', 'share_class'], ['issue', 'quantity'],
      ['transfer', 'client_account_id'], ['transfer', 'from_business_partner_id'], ['transfer', 'to_business_partner_id'], ['transfer', 'share_class'], ['transfer', 'quantity'],
      ['buyback', 'client_account_id'], ['buyback', 'from_business_partner_id'], ['buyback', 'company_business_partner_id'], ['buyback', 'share_class'], ['buyback', 'quantity'],
      ['retire', 'client_account_id'], ['retire', 'company_business_partner_id'], ['retire', 'share_class'], ['retire', 'quantity'],
      ['split', 'client_account_id'], ['split', 'business_partner_id'], ['split', 'share_class'], ['split', 'old_quantity'], ['split', 'new_quantity'],
    ] as const;

    let c: Company;
    let a: number;
    let b: number;
    beforeAll(async () => {
      c = await company(app);
      [a, b] = [await c.partner('Ada'), await c.partner('Bo')];
      await issue(c, a, 10);
    });

    it.each(REQUIRED)('POST /equity/transactions/%s: 400 {error, status} without required %s, nothing written', async (path, field) => {
      const before = (await entries(c)).length;
      const body = { client_account_id: c.t.account.id, ...bodies(c, a, b)[path] };
      delete (body as Record<string, unknown>)[field];
      const res = await app.http('POST', `/api/v2/equity/transactions/${path}`, { token: c.t.user.token, body });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining(field), status: 400 } });
      expect((await entries(c)).length).toBe(before);
    });

    const QUANTITY_FIELDS = [['issue', 'quantity'], ['transfer', 'quantity'], ['buyback', 'quantity'], ['retire', 'quantity'], ['split', 'old_quantity'], ['split', 'new_quantity']] as const;
    it.each(QUANTITY_FIELDS.flatMap(([p, f]) => [0, -5, 1.5, '7', 3_000_000_000].map((v) => [p, f, v] as const)))(
      '"quantities positive" (whole shares): POST %s with %s %j is a 400 naming it',
      async (path, field, value) => {
        const res = await c.post(path, { ...bodies(c, a, b)[path], [field]: value });
        expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining(field), status: 400 } });
      },
    );

    it.each([
      ['issue', 'price_per_share', '-1'],
      ['issue', 'price_per_share', '1.1234567'],
      ['issue', 'price_per_share', 'abc'],
      ['transfer', 'price_per_share', '-0.01'],
      ['buyback', 'price_per_share', '1.0000001'],
      ['issue', 'share_class', 'ORDINARY'],
      ['transfer', 'share_class', 'common stock'],
      ['issue', 'transaction_date', '2026-02-30'],
      ['issue', 'notes', '1001 characters'],
      ['split', 'notes', '1001 characters'],
    ])('POST %s: %s %j is a 400 naming the field', async (path, field, value) => {
      const res = await c.post(path, { ...bodies(c, a, b)[path], [field]: value === '1001 characters' ? 'x'.repeat(1001) : value });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining(field), status: 400 } });
    });

    it.each([
      ['retire', 'price_per_share'],
      ['split', 'price_per_share'],
      ['issue', 'old_quantity'],
      ['transfer', 'business_partner_id'],
    ])('POST %s: %s is not a field of the documented body (400)', async (path, field) => {
      const res = await c.post(path, { ...bodies(c, a, b)[path], [field]: 1 });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining(field), status: 400 } });
    });

    it.each([['issue'], ['transfer'], ['buyback'], ['retire'], ['split']])(
      'POST %s: 403 for a client account the caller cannot access, nothing written there',
      async (path) => {
        const res = await app.http('POST', `/api/v2/equity/transactions/${path}`, { token: stranger.user.token, body: { client_account_id: c.t.account.id, ...bodies(c, a, b)[path] } });
        expect(res).toMatchObject({ status: 403, body: { error: expect.any(String), status: 403 } });
      },
    );

    it.each([['issue'], ['transfer'], ['buyback'], ['retire'], ['split']])('POST %s: a token without write gets 403', async (path) => {
      const res = await c.post(path, bodies(c, a, b)[path], c.t.user.readToken);
      expect(res.status).toBe(403);
    });

    it.each([
      ['issue', 'business_partner_id'],
      ['transfer', 'from_business_partner_id'],
      ['transfer', 'to_business_partner_id'],
      ['buyback', 'from_business_partner_id'],
      ['buyback', 'company_business_partner_id'],
      ['retire', 'company_business_partner_id'],
      ['split', 'business_partner_id'],
    ])("POST %s: %s of another client account (or none) is a 400 naming it, as every reference", async (path, field) => {
      const foreign = (await app.seed.prisma.businessPartner.findFirstOrThrow({ where: { clientAccountId: stranger.account.id, isSelf: true } })).id;
      for (const id of [foreign, 2_000_000_000]) {
        const res = await c.post(path, { ...bodies(c, a, b)[path], [field]: id });
        expect(res).toMatchObject({ status: 400, body: { error: `${field}: business partner ${id} does not exist in client account ${c.t.account.id}`, status: 400 } });
      }
    });

    it.each([
      ['buyback', 'company_business_partner_id'],
      ['retire', 'company_business_partner_id'],
    ])("POST %s: %s naming another partner when the account has its own (is_self) is a 400 naming the own one", async (path, field) => {
      const res = await c.post(path, { ...bodies(c, a, b)[path], [field]: b });
      expect(res).toMatchObject({
        status: 400,
        body: { error: `${field}: business partner ${b} is not the company itself: business partner ${c.self} (${c.t.account.displayName}) is the client account's own business partner`, status: 400 },
      });
    });

    it('"no transfer or buyback between the same entity": 400 for both, nothing written', async () => {
      const before = (await entries(c)).length;
      const transfer = await c.post('transfer', { ...bodies(c, a, b).transfer, to_business_partner_id: a });
      expect(transfer).toMatchObject({ status: 400, body: { error: expect.stringContaining('no transfer between the same entity'), status: 400 } });
      await issue(c, b, 1);
      const buyback = await c.post('buyback', { ...bodies(c, a, b).buyback, from_business_partner_id: c.self });
      expect(buyback).toMatchObject({ status: 400, body: { error: expect.stringContaining('no buyback between the same entity'), status: 400 } });
      expect((await entries(c)).length).toBe(before + 1);
    });
  });

  describe('spec 002 "company_business_partner_id" names the company\'s own partner', () => {
    /** A company whose client account has no own business partner (is_self) yet, as an account can be. */
    const withoutOwn = async (): Promise<Company> => {
      const c = await company(app);
      await app.seed.prisma.businessPartner.delete({ where: { id: c.self } });
      return c;
    };
    const isSelf = async (c: Company, partner: number): Promise<boolean> => {
      const listed = await entries(c, `&business_partner_id=${partner}&with=business_partner`);
      return listed.length ? (listed[0] as unknown as { business_partner: { is_self: boolean } }).business_partner.is_self : false;
    };
    const capTable = (c: Company, partner: number) => c.get(`cap-table?client_account_id=${c.t.account.id}&company_business_partner_id=${partner}`);

    it('spec 002 "POST /equity/transactions/buyback | client_account_id, from_business_partner_id, company_business_partner_id, …": on an account with no own partner, the partner named becomes it (201, recorded as the company); a second, different partner then → 400 naming the first', async () => {
      const c = await withoutOwn();
      const [ada, acme, other] = [await c.partner('Ada'), await c.partner('Acme AS'), await c.partner('Other AS')];
      await issue(c, ada, 10);
      const bought = await c.post('buyback?with=business_partner', { from_business_partner_id: ada, company_business_partner_id: acme, share_class: 'COMMON', quantity: 4 });
      expect(bought.status, JSON.stringify(bought.body)).toBe(201);
      expect(bought.body).toMatchObject({ transaction_type: 'BUYBACK', business_partner_id: acme, quantity: 4, business_partner: { id: acme, is_self: true } });
      const again = await c.post('buyback', { from_business_partner_id: ada, company_business_partner_id: other, share_class: 'COMMON', quantity: 1 });
      expect(again).toMatchObject({
        status: 400,
        body: { error: `company_business_partner_id: business partner ${other} is not the company itself: business partner ${acme} (Acme AS) is the client account's own business partner`, status: 400 },
      });
      expect((await c.post('retire', { company_business_partner_id: other, share_class: 'COMMON', quantity: 1 })).body.error).toContain(`business partner ${acme} (Acme AS) is the client account's own`);
      expect((await c.post('retire', { company_business_partner_id: acme, share_class: 'COMMON', quantity: 1 })).status).toBe(201);
      expect((await capTable(c, acme)).body).toMatchObject({ total_shares: 6, treasury_shares: { COMMON: 3 } });
    });

    it('spec 002 "POST /equity/transactions/retire | client_account_id, company_business_partner_id, …": on an account with no own partner, retiring from the partner named records it as the company', async () => {
      const c = await withoutOwn();
      const [ada, acme] = [await c.partner('Ada'), await c.partner('Acme AS')];
      await issue(c, ada, 10);
      expect((await c.post('transfer', { from_business_partner_id: ada, to_business_partner_id: acme, share_class: 'COMMON', quantity: 2 })).status).toBe(201);
      expect(await isSelf(c, acme)).toBe(false);
      const retired = await c.post('retire?with=business_partner', { company_business_partner_id: acme, share_class: 'COMMON', quantity: 2 });
      expect(retired.status, JSON.stringify(retired.body)).toBe(201);
      expect(retired.body.business_partner).toMatchObject({ id: acme, is_self: true });
    });

    it('the company is recorded in the write\'s transaction: a buyback refused for "Insufficient shares" records nothing', async () => {
      const c = await withoutOwn();
      const [ada, acme, other] = [await c.partner('Ada'), await c.partner('Acme AS'), await c.partner('Other AS')];
      const refused = await c.post('buyback', { from_business_partner_id: ada, company_business_partner_id: acme, share_class: 'COMMON', quantity: 1 });
      expect(refused.body.error).toMatch(/^Insufficient shares: /);
      // nothing recorded: another partner is still taken as the company
      expect((await capTable(c, other)).status).toBe(200);
      await issue(c, ada, 1);
      expect((await c.post('buyback', { from_business_partner_id: ada, company_business_partner_id: other, share_class: 'COMMON', quantity: 1 })).status).toBe(201);
    });

    it('"concurrent transactions are serialized by locking": two buybacks naming different partners at once on an account with no own partner record one company; the other is a 400 naming it', async () => {
      const c = await withoutOwn();
      const [ada, acme, other] = [await c.partner('Ada'), await c.partner('Acme AS'), await c.partner('Other AS')];
      await issue(c, ada, 10);
      const answers = await Promise.all(
        [acme, other].map((company) => c.post('buyback', { from_business_partner_id: ada, company_business_partner_id: company, share_class: 'COMMON', quantity: 1 })),
      );
      expect(answers.map((r) => r.status).sort()).toEqual([201, 400]);
      const winner = answers.find((r) => r.status === 201)!.body.business_partner_id as number;
      const loser = winner === acme ? other : acme;
      expect(answers.find((r) => r.status === 400)!.body.error).toContain(`business partner ${loser} is not the company itself: business partner ${winner} `);
      expect([await isSelf(c, acme), await isSelf(c, other)].filter(Boolean)).toHaveLength(1);
    });

    it('spec 002 "GET /equity/cap-table | client_account_id, company_business_partner_id (both required)": a GET writes nothing; with no own partner, the partner named is read as the company (its holding is treasury shares), and so is another one named next; once one is recorded, another → 400 naming it', async () => {
      const c = await withoutOwn();
      const [ada, acme, other] = [await c.partner('Ada'), await c.partner('Acme AS'), await c.partner('Other AS')];
      await issue(c, ada, 6);
      await issue(c, other, 2);
      const asAcme = await capTable(c, acme);
      expect(asAcme.status, JSON.stringify(asAcme.body)).toBe(200);
      expect(asAcme.body).toMatchObject({ total_shares: 8, treasury_shares: {} });
      const asOther = await capTable(c, other);
      expect(asOther.status).toBe(200);
      expect(asOther.body).toMatchObject({ total_shares: 6, treasury_shares: { COMMON: 2 } });
      expect(asOther.body.shareholders.map((h: { business_partner_id: number }) => h.business_partner_id)).toEqual([ada]);
      expect(await isSelf(c, other)).toBe(false);
      expect((await c.post('buyback', { from_business_partner_id: ada, company_business_partner_id: acme, share_class: 'COMMON', quantity: 1 })).status).toBe(201);
      expect(await capTable(c, other)).toMatchObject({
        status: 400,
        body: { error: `company_business_partner_id: business partner ${other} is not the company itself: business partner ${acme} (Acme AS) is the client account's own business partner`, status: 400 },
      });
    });

    it('a partner whose organisation number is the client account\'s is the company itself: accepted as company_business_partner_id beside the own partner (which stays is_self), its holding treasury shares; it cannot subscribe shares or sell to the company', async () => {
      const c = await company(app);
      const orgNumber = randomOrganizationNumber();
      await app.seed.prisma.clientAccount.update({ where: { id: c.t.account.id }, data: { organizationNumber: orgNumber } });
      const twin = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: c.t.account.id, name: 'Selskapet AS', organizationNumber: orgNumber } })).id;
      const ada = await c.partner('Ada');
      await issue(c, ada, 10);
      const bought = await c.post('buyback?with=business_partner', { from_business_partner_id: ada, company_business_partner_id: twin, share_class: 'COMMON', quantity: 3 });
      expect(bought.status, JSON.stringify(bought.body)).toBe(201);
      expect(bought.body.business_partner).toMatchObject({ id: twin, is_self: false });
      for (const named of [c.self, twin]) {
        const cap = await capTable(c, named);
        expect(cap.status).toBe(200);
        expect(cap.body).toMatchObject({ total_shares: 7, treasury_shares: { COMMON: 3 } });
        expect(cap.body.shareholders.map((h: { business_partner_id: number }) => h.business_partner_id)).toEqual([ada]);
      }
      expect((await c.post('issue', { business_partner_id: twin, share_class: 'COMMON', quantity: 1 })).body.error).toMatch(/^business_partner_id: is the company itself/);
      const selling = await c.post('buyback', { from_business_partner_id: twin, company_business_partner_id: c.self, share_class: 'COMMON', quantity: 1 });
      expect(selling).toMatchObject({ status: 400, body: { error: expect.stringContaining('no buyback between the same entity') } });
      expect((await c.post('retire', { company_business_partner_id: twin, share_class: 'COMMON', quantity: 3 })).status).toBe(201);
    });
  });

  describe('"transfers, buybacks, retirements and splits check sufficient shares"', () => {
    it.each([
      ['transfer', (a: number, b: number, self: number) => ({ from_business_partner_id: a, to_business_partner_id: b, share_class: 'COMMON', quantity: 11 }), 'Ada', 10, 11],
      ['buyback', (a: number, _b: number, self: number) => ({ from_business_partner_id: a, company_business_partner_id: self, share_class: 'COMMON', quantity: 12 }), 'Ada', 10, 12],
      ['retire', (_a: number, _b: number, self: number) => ({ company_business_partner_id: self, share_class: 'COMMON', quantity: 1 }), 'self', 0, 1],
      ['split', (a: number) => ({ business_partner_id: a, share_class: 'COMMON', old_quantity: 15, new_quantity: 30 }), 'Ada', 10, 15],
      ['transfer', (a: number, b: number) => ({ from_business_partner_id: a, to_business_partner_id: b, share_class: 'PREFERRED', quantity: 1 }), 'Ada', 0, 1],
    ] as const)('%s: 400 {error: "Insufficient shares: <holder> has N <class>, needs M", status: 400}, nothing written', async (path, body, holder, has, needs) => {
      const c = await company(app);
      const [a, b] = [await c.partner('Ada'), await c.partner('Bo')];
      await issue(c, a, 10);
      const before = await entries(c);
      const res = await c.post(path, body(a, b, c.self));
      const sent = body(a, b, c.self) as { share_class: string };
      const name = holder === 'self' ? c.t.account.displayName : 'Ada';
      const id = holder === 'self' ? c.self : a;
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: `Insufficient shares: ${name} (business partner ${id}) has ${has} ${sent.share_class}, needs ${needs}`, status: 400 });
      expect(res.body.error.startsWith('Insufficient shares: ')).toBe(true);
      expect(await entries(c)).toEqual(before);
    });

    it('a transfer dated before the sender had the shares is refused (positions never go negative on any date)', async () => {
      const c = await company(app);
      const [a, b] = [await c.partner('Ada'), await c.partner('Bo')];
      await issue(c, a, 10, { transaction_date: '2026-05-01' });
      const early = await c.post('transfer', { from_business_partner_id: a, to_business_partner_id: b, share_class: 'COMMON', quantity: 5, transaction_date: '2026-04-30' });
      expect(early).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^Insufficient shares: Ada \(business partner \d+\) has 0 COMMON, needs 5$/) } });
      // a later disposal counts against an earlier date: 10 on 1 May, 8 sent on 1 June, so only 2 can go on 15 May
      expect((await c.post('transfer', { from_business_partner_id: a, to_business_partner_id: b, share_class: 'COMMON', quantity: 8, transaction_date: '2026-06-01' })).status).toBe(201);
      const between = await c.post('transfer', { from_business_partner_id: a, to_business_partner_id: b, share_class: 'COMMON', quantity: 3, transaction_date: '2026-05-15' });
      expect(between).toMatchObject({ status: 400, body: { error: expect.stringMatching(/has 2 COMMON, needs 3$/) } });
      expect((await c.post('transfer', { from_business_partner_id: a, to_business_partner_id: b, share_class: 'COMMON', quantity: 2, transaction_date: '2026-05-15' })).status).toBe(201);
    });
  });

  describe('"every transaction creates balanced entries"', () => {
    it('TRANSFER: −q for the sender, +q for the recipient under one transaction_group_id (sum 0); 201 with the recipient\'s entry', async () => {
      const c = await company(app);
      const [a, b] = [await c.partner('Ada'), await c.partner('Bo')];
      await issue(c, a, 100);
      const res = await c.post('transfer', { from_business_partner_id: a, to_business_partner_id: b, share_class: 'COMMON', quantity: 40, price_per_share: '20', notes: 'Salg' });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(ENTRY_KEYS);
      expect(res.body).toMatchObject({ transaction_type: 'TRANSFER', business_partner_id: b, quantity: 40, price_per_share: '20.000000', notes: 'Salg' });
      const group = (await entries(c)).filter((e) => e.transaction_group_id === res.body.transaction_group_id);
      expect(group.map((e) => [e.business_partner_id, e.quantity, e.transaction_type])).toEqual([
        [a, -40, 'TRANSFER'],
        [b, 40, 'TRANSFER'],
      ]);
      expect(await positions(c)).toEqual([
        { business_partner_id: a, share_class: 'COMMON', quantity: 60, cost_basis: '0.00' },
        { business_partner_id: b, share_class: 'COMMON', quantity: 40, cost_basis: '800.00' },
      ]);
    });

    it("BUYBACK: −q from the seller, +q to the company's own business partner (treasury shares); 201 with the company's entry", async () => {
      const c = await company(app);
      const a = await c.partner('Ada');
      await issue(c, a, 100);
      const res = await c.post('buyback', { from_business_partner_id: a, company_business_partner_id: c.self, share_class: 'COMMON', quantity: 25 });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ transaction_type: 'BUYBACK', business_partner_id: c.self, quantity: 25 });
      const group = (await entries(c)).filter((e) => e.transaction_group_id === res.body.transaction_group_id);
      expect(group.map((e) => [e.business_partner_id, e.quantity])).toEqual([
        [a, -25],
        [c.self, 25],
      ]);
    });

    it('RETIREMENT: −q from the company\'s treasury shares only (sum −q); 201 with the entry', async () => {
      const c = await company(app);
      const a = await c.partner('Ada');
      await issue(c, a, 100);
      expect((await c.post('buyback', { from_business_partner_id: a, company_business_partner_id: c.self, share_class: 'COMMON', quantity: 25 })).status).toBe(201);
      const res = await c.post('retire', { company_business_partner_id: c.self, share_class: 'COMMON', quantity: 20, notes: 'Kapitalnedsettelse' });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(ENTRY_KEYS);
      expect(res.body).toMatchObject({ transaction_type: 'RETIREMENT', business_partner_id: c.self, quantity: -20, price_per_share: null, notes: 'Kapitalnedsettelse' });
      const group = (await entries(c)).filter((e) => e.transaction_group_id === res.body.transaction_group_id);
      expect(group.map((e) => e.quantity)).toEqual([-20]);
      expect((await positions(c)).map((p) => [p.business_partner_id, p.quantity])).toEqual([[c.self, 5], [a, 75]].sort((x, y) => x[0] - y[0]));
    });

    it.each([
      [100, 300, 3, 1],
      [4, 6, 3, 2],
      [90, 30, 1, 3],
      [7, 13, 13, 7],
    ])('SPLIT %i → %i: −old and +new, split_ratio_numerator/denominator %i/%i (new/old reduced); 201 with the +new entry', async (oldQ, newQ, num, den) => {
      const c = await company(app);
      const a = await c.partner('Ada');
      await issue(c, a, oldQ, { price_per_share: '3' });
      const res = await c.post('split', { business_partner_id: a, share_class: 'COMMON', old_quantity: oldQ, new_quantity: newQ });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ transaction_type: 'SPLIT', business_partner_id: a, quantity: newQ, split_ratio_numerator: num, split_ratio_denominator: den });
      const group = (await entries(c)).filter((e) => e.transaction_group_id === res.body.transaction_group_id);
      expect(group.map((e) => [e.quantity, e.transaction_type])).toEqual([
        [-oldQ, 'SPLIT'],
        [newQ, 'SPLIT'],
      ]);
      // "a split keeps the cost"
      expect(await positions(c)).toEqual([{ business_partner_id: a, share_class: 'COMMON', quantity: newQ, cost_basis: (oldQ * 3).toFixed(2) }]);
    });

    it('SPLIT: "old_quantity (must equal the current position)" else 400; new_quantity equal to old is a 400; a split dated before the holder\'s latest entry is a 400', async () => {
      const c = await company(app);
      const a = await c.partner('Ada');
      await issue(c, a, 100, { transaction_date: '2026-06-01' });
      expect(await c.post('split', { business_partner_id: a, share_class: 'COMMON', old_quantity: 50, new_quantity: 100 })).toMatchObject({
        status: 400,
        body: { error: 'old_quantity: must equal the current position: 100 COMMON', status: 400 },
      });
      expect(await c.post('split', { business_partner_id: a, share_class: 'COMMON', old_quantity: 100, new_quantity: 100 })).toMatchObject({
        status: 400,
        body: { error: expect.stringContaining('new_quantity'), status: 400 },
      });
      expect(await c.post('split', { business_partner_id: a, share_class: 'COMMON', old_quantity: 100, new_quantity: 200, transaction_date: '2026-05-31' })).toMatchObject({
        status: 400,
        body: { error: expect.stringMatching(/^transaction_date: must not be before 2026-06-01/), status: 400 },
      });
      expect(await entries(c)).toHaveLength(1);
    });
  });

  describe('GET /equity/transactions and /equity/transactions/{id}', () => {
    let c: Company;
    let a: number;
    let b: number;
    beforeAll(async () => {
      c = await company(app);
      [a, b] = [await c.partner('Ada'), await c.partner('Bo')];
      // created out of date order: the list orders by transaction_date, then id
      await issue(c, a, 100, { transaction_date: '2026-03-10' });
      await issue(c, b, 50, { transaction_date: '2026-01-05', share_class: 'PREFERRED' });
      expect((await c.post('transfer', { from_business_partner_id: a, to_business_partner_id: b, share_class: 'COMMON', quantity: 10, transaction_date: '2026-03-10' })).status).toBe(201);
      expect((await c.post('buyback', { from_business_partner_id: b, company_business_partner_id: c.self, share_class: 'COMMON', quantity: 4, transaction_date: '2026-04-01' })).status).toBe(201);
    });

    it('lists the entries ordered by transaction_date then id, in the page envelope', async () => {
      const res = await c.get(`transactions?client_account_id=${c.t.account.id}`);
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({ page: 1, pages: 1, per_page: 100, records: 6 });
      expect(res.body.data.map((e: EntryBody) => [e.transaction_date, e.business_partner_id, e.quantity])).toEqual([
        ['2026-01-05', b, 50],
        ['2026-03-10', a, 100],
        ['2026-03-10', a, -10],
        ['2026-03-10', b, 10],
        ['2026-04-01', b, -4],
        ['2026-04-01', c.self, 4],
      ]);
      for (const e of res.body.data) expect(Object.keys(e).sort()).toEqual(ENTRY_KEYS);
    });

    it.each([
      ['business_partner_id', (): string | number => b, (e: EntryBody) => e.business_partner_id === b, 3],
      ['share_class', (): string | number => 'PREFERRED', (e: EntryBody) => e.share_class === 'PREFERRED', 1],
      ['transaction_type', (): string | number => 'TRANSFER', (e: EntryBody) => e.transaction_type === 'TRANSFER', 2],
      ['date_from', (): string | number => '2026-03-10', (e: EntryBody) => e.transaction_date >= '2026-03-10', 5],
      ['date_to', (): string | number => '2026-03-10', (e: EntryBody) => e.transaction_date <= '2026-03-10', 4],
    ] as const)('filter %s (dates inclusive)', async (name, value, keep, count) => {
      const data = await entries(c, `&${name}=${value()}`);
      expect(data).toHaveLength(count);
      expect(data.every(keep)).toBe(true);
    });

    it('"page (1), per_page (100, max 100)": pages; per_page above 100 serves 100 (as every list), below 1 is a 400', async () => {
      const res = await c.get(`transactions?client_account_id=${c.t.account.id}&per_page=4&page=2`);
      expect(res.body.meta).toEqual({ page: 2, pages: 2, per_page: 4, records: 6 });
      expect(res.body.data).toHaveLength(2);
      expect((await c.get(`transactions?client_account_id=${c.t.account.id}&per_page=101`)).body.meta).toEqual({ page: 1, pages: 1, per_page: 100, records: 6 });
      for (const bad of ['per_page=0', 'page=0']) {
        expect(await c.get(`transactions?client_account_id=${c.t.account.id}&${bad}`)).toMatchObject({ status: 400, body: { error: expect.stringContaining(bad.split('=')[0]), status: 400 } });
      }
      expect((await c.get(`transactions?client_account_id=${c.t.account.id}&per_page=100`)).status).toBe(200);
    });

    it('"with": business_partner, created_by, updated_by; an unknown relation is a 400', async () => {
      const data = await entries(c, '&with=business_partner,created_by,updated_by');
      const person = { id: c.t.user.id, first_name: 'Test', last_name: 'User', email: c.t.user.email };
      expect(data[0]).toMatchObject({
        business_partner: { id: b, name: 'Bo', organization_number: null, email: null, is_shareholder: true, is_self: false },
        created_by: person,
        updated_by: person,
      });
      expect(data.find((e) => e.business_partner_id === c.self)).toMatchObject({ business_partner: { id: c.self, is_self: true } });
      expect((await entries(c)).every((e) => !('business_partner' in e))).toBe(true);
      expect((await c.get(`transactions?client_account_id=${c.t.account.id}&with=client_account`)).status).toBe(400);
    });

    it('client_account_id is required (400); another account is 403; filters are checked (400)', async () => {
      expect(await c.get('transactions')).toMatchObject({ status: 400, body: { error: expect.stringContaining('client_account_id'), status: 400 } });
      expect(await c.get(`transactions?client_account_id=${c.t.account.id}`, stranger.user.token)).toMatchObject({ status: 403, body: { status: 403 } });
      for (const bad of ['share_class=GOLD', 'transaction_type=GIFT', 'date_from=2026-13-01', 'business_partner_id=x']) {
        expect((await c.get(`transactions?client_account_id=${c.t.account.id}&${bad}`)).status).toBe(400);
      }
    });

    it('GET /equity/transactions/{id}: the entry (with relations); 404 when missing; 403 for another account\'s', async () => {
      const first = (await entries(c))[0];
      const res = await c.get(`transactions/${first.id}?with=business_partner`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ ...first, business_partner: { id: b } });
      expect(await c.get('transactions/2000000000')).toMatchObject({ status: 404, body: { error: expect.any(String), status: 404 } });
      expect(await c.get(`transactions/${first.id}`, stranger.user.token)).toMatchObject({ status: 403, body: { status: 403 } });
      expect((await c.get('transactions/abc')).status).toBe(400);
    });
  });

  describe('GET /equity/positions', () => {
    it('"cost basis uses weighted average": acquisitions add q × price; disposals remove their share of the average cost; a transfer without a price carries the sender\'s cost', async () => {
      const c = await company(app);
      const [a, b] = [await c.partner('Ada'), await c.partner('Bo')];
      await issue(c, a, 100, { price_per_share: '10', transaction_date: '2026-01-01' }); // 100 for 1000.00
      await issue(c, a, 50, { price_per_share: '16', transaction_date: '2026-02-01' }); // 150 for 1800.00 (avg 12)
      const t1 = await c.post('transfer', { from_business_partner_id: a, to_business_partner_id: b, share_class: 'COMMON', quantity: 30, price_per_share: '20', transaction_date: '2026-03-01' });
      expect(t1.status).toBe(201); // Ada 120 for 1440.00; Bo 30 for 600.00
      const t2 = await c.post('transfer', { from_business_partner_id: a, to_business_partner_id: b, share_class: 'COMMON', quantity: 7, transaction_date: '2026-03-02' });
      expect(t2.status).toBe(201); // Ada gives 7 × 12 = 84.00: Ada 113 for 1356.00; Bo 37 for 684.00
      const bb = await c.post('buyback', { from_business_partner_id: b, company_business_partner_id: c.self, share_class: 'COMMON', quantity: 10, transaction_date: '2026-03-03' });
      expect(bb.status).toBe(201); // Bo gives 684 × 10/37 = 184.864… → 184.86: Bo 27 for 499.14; company 10 for 184.86
      expect((await c.post('retire', { company_business_partner_id: c.self, share_class: 'COMMON', quantity: 3, transaction_date: '2026-03-04' })).status).toBe(201);
      // company gives 184.86 × 3/10 = 55.458 → 55.46: 7 for 129.40
      expect(await positions(c)).toEqual(
        [
          { business_partner_id: a, share_class: 'COMMON', quantity: 113, cost_basis: '1356.00' },
          { business_partner_id: b, share_class: 'COMMON', quantity: 27, cost_basis: '499.14' },
          { business_partner_id: c.self, share_class: 'COMMON', quantity: 7, cost_basis: '129.40' },
        ].sort((x, y) => x.business_partner_id - y.business_partner_id),
      );
    });

    it('"include_void (default false)": emptied positions only with include_void=true; filters business_partner_id and share_class', async () => {
      const c = await company(app);
      const [a, b] = [await c.partner('Ada'), await c.partner('Bo')];
      await issue(c, a, 10, { price_per_share: '2' });
      await issue(c, a, 5, { share_class: 'SEED' });
      expect((await c.post('transfer', { from_business_partner_id: a, to_business_partner_id: b, share_class: 'COMMON', quantity: 10 })).status).toBe(201);
      expect(await positions(c)).toEqual([
        { business_partner_id: a, share_class: 'SEED', quantity: 5, cost_basis: '0.00' },
        { business_partner_id: b, share_class: 'COMMON', quantity: 10, cost_basis: '20.00' },
      ]);
      expect(await positions(c, '&include_void=true')).toEqual([
        { business_partner_id: a, share_class: 'COMMON', quantity: 0, cost_basis: '0.00' },
        { business_partner_id: a, share_class: 'SEED', quantity: 5, cost_basis: '0.00' },
        { business_partner_id: b, share_class: 'COMMON', quantity: 10, cost_basis: '20.00' },
      ]);
      expect(await positions(c, `&business_partner_id=${a}&include_void=true`)).toHaveLength(2);
      expect(await positions(c, '&share_class=SEED')).toEqual([{ business_partner_id: a, share_class: 'SEED', quantity: 5, cost_basis: '0.00' }]);
      expect(await positions(c, `&business_partner_id=${c.self}`)).toEqual([]);
    });

    it('client_account_id required (400), another account 403, bad filters 400', async () => {
      const c = await company(app);
      expect(await c.get('positions')).toMatchObject({ status: 400, body: { error: expect.stringContaining('client_account_id'), status: 400 } });
      expect(await c.get(`positions?client_account_id=${c.t.account.id}`, stranger.user.token)).toMatchObject({ status: 403, body: { status: 403 } });
      expect((await c.get(`positions?client_account_id=${c.t.account.id}&include_void=maybe`)).status).toBe(400);
      expect((await c.get(`positions?client_account_id=${c.t.account.id}&share_class=GOLD`)).status).toBe(400);
    });
  });

  describe('GET /equity/cap-table', () => {
    it('shareholders with positions per class, shares and percentages, totals; treasury shares apart; percentages sum to 100.00', async () => {
      const c = await company(app);
      const [a, b, d] = [await c.partner('Ada'), await c.partner('Bo'), await c.partner('Cy')];
      await issue(c, a, 100);
      await issue(c, b, 100);
      await issue(c, d, 100);
      await issue(c, a, 50, { share_class: 'PREFERRED' });
      await issue(c, d, 30, { share_class: 'SERIES_A' });
      expect((await c.post('buyback', { from_business_partner_id: b, company_business_partner_id: c.self, share_class: 'COMMON', quantity: 10 })).status).toBe(201);
      const res = await c.get(`cap-table?client_account_id=${c.t.account.id}&company_business_partner_id=${c.self}`);
      expect(res.status).toBe(200);
      // outstanding COMMON 290 (the company's 10 are treasury shares): 34.48 + 34.48 + 31.03 leaves 0.01 for the
      // largest remainder (Bo's 0.448); all classes 370: 40.54 + 35.13 + 24.32 leaves 0.01 for Cy's 0.51
      expect(res.body).toEqual({
        shareholders: [
          { business_partner_id: a, name: 'Ada', positions: { COMMON: { shares: 100, percentage: '34.48' }, PREFERRED: { shares: 50, percentage: '100.00' } }, total_shares: 150, total_percentage: '40.54' },
          { business_partner_id: d, name: 'Cy', positions: { COMMON: { shares: 100, percentage: '34.48' }, SERIES_A: { shares: 30, percentage: '100.00' } }, total_shares: 130, total_percentage: '35.14' },
          { business_partner_id: b, name: 'Bo', positions: { COMMON: { shares: 90, percentage: '31.04' } }, total_shares: 90, total_percentage: '24.32' },
        ],
        share_classes: ['COMMON', 'PREFERRED', 'SERIES_A'],
        total_shares: 370,
        treasury_shares: { COMMON: 10 },
      });
    });

    it('equal holdings: ordered by name, and the rounded percentages still sum to exactly 100.00', async () => {
      const c = await company(app);
      const ids = [await c.partner('Cy'), await c.partner('Ada'), await c.partner('Bo')];
      for (const id of ids) await issue(c, id, 1);
      const res = await c.get(`cap-table?client_account_id=${c.t.account.id}&company_business_partner_id=${c.self}`);
      expect(res.body.shareholders.map((s: { name: string; total_percentage: string }) => [s.name, s.total_percentage])).toEqual([
        ['Ada', '33.34'],
        ['Bo', '33.33'],
        ['Cy', '33.33'],
      ]);
      expect(res.body.treasury_shares).toEqual({});
    });

    it('an empty company: no shareholders, total 0', async () => {
      const c = await company(app);
      const res = await c.get(`cap-table?client_account_id=${c.t.account.id}&company_business_partner_id=${c.self}`);
      expect(res).toMatchObject({ status: 200, body: { shareholders: [], share_classes: [], total_shares: 0, treasury_shares: {} } });
    });

    it('"client_account_id, company_business_partner_id (both required)": 400 without either; 400 when the partner is not the company itself or not the account\'s; 403 for another account', async () => {
      const c = await company(app);
      const a = await c.partner('Ada');
      const id = c.t.account.id;
      expect(await c.get(`cap-table?client_account_id=${id}`)).toMatchObject({ status: 400, body: { error: expect.stringContaining('company_business_partner_id'), status: 400 } });
      expect(await c.get(`cap-table?company_business_partner_id=${c.self}`)).toMatchObject({ status: 400, body: { error: expect.stringContaining('client_account_id'), status: 400 } });
      expect(await c.get(`cap-table?client_account_id=${id}&company_business_partner_id=${a}`)).toMatchObject({ status: 400, body: { error: expect.stringContaining('not the company itself') } });
      const foreign = (await app.seed.prisma.businessPartner.findFirstOrThrow({ where: { clientAccountId: stranger.account.id, isSelf: true } })).id;
      expect(await c.get(`cap-table?client_account_id=${id}&company_business_partner_id=${foreign}`)).toMatchObject({ status: 400, body: { error: expect.stringContaining('does not exist in client account') } });
      expect(await c.get(`cap-table?client_account_id=${id}&company_business_partner_id=${c.self}`, stranger.user.token)).toMatchObject({ status: 403, body: { status: 403 } });
    });
  });

  describe('"concurrent transactions are serialized by locking"', () => {
    it('2 × 40 concurrent transfers and buybacks over 3 holders: no position ever negative, the refusals say "Insufficient shares", the sums match the answers', async () => {
      const c = await company(app);
      const holders = [await c.partner('Ada'), await c.partner('Bo'), await c.partner('Cy')];
      for (const h of holders) await issue(c, h, 10);
      const burst = () =>
        Promise.all(
          Array.from({ length: 40 }, (_, i) => {
            const from = holders[i % 3];
            return i % 4 === 3
              ? c.post('buyback', { from_business_partner_id: from, company_business_partner_id: c.self, share_class: 'COMMON', quantity: 3 })
              : c.post('transfer', { from_business_partner_id: from, to_business_partner_id: holders[(i + 1) % 3], share_class: 'COMMON', quantity: 4 });
          }),
        );
      const answers = [...(await burst()), ...(await burst())];
      for (const r of answers) {
        expect([201, 400], JSON.stringify(r.body)).toContain(r.status);
        if (r.status === 400) expect(r.body.error).toMatch(/^Insufficient shares: /);
      }
      const bought = answers.filter((r) => r.status === 201 && r.body.transaction_type === 'BUYBACK').length;
      expect(answers.filter((r) => r.status === 201).length).toBeGreaterThan(3);
      // replay the committed entries in their order: no running holding below zero
      const all = [...(await entries(c, '&per_page=100')), ...(await entries(c, '&per_page=100&page=2'))];
      expect(all.length).toBeLessThan(200);
      const running = new Map<number, number>();
      for (const e of all) {
        running.set(e.business_partner_id, (running.get(e.business_partner_id) ?? 0) + e.quantity);
        if (e.quantity > 0) continue;
        expect(running.get(e.business_partner_id)).toBeGreaterThanOrEqual(0);
      }
      const pos = await positions(c, '&include_void=true');
      expect(pos.every((p) => p.quantity >= 0)).toBe(true);
      expect(pos.reduce((s, p) => s + p.quantity, 0)).toBe(30);
      expect(pos.find((p) => p.business_partner_id === c.self)?.quantity ?? 0).toBe(3 * bought);
    });
  });
});
