import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHART_OF_ACCOUNTS } from '../../src/reference-data/index.ts';
import { startTestApp, targets, type TestApp, errorCode } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

const ACCOUNT = `id clientAccountId code name accountType saftGroupingCategory saftGroupingCode defaultTaxCodeId
  defaultTaxCode { code } isActive mandatoryDimensions allowedTaxCodes { id code } createdAt updatedAt`;

const CREATE = `mutation($input: CreateAccountInput!) { createAccount(input: $input) { ${ACCOUNT} } }`;
const UPDATE = `mutation($id: Int!, $input: UpdateAccountInput!) { updateAccount(id: $id, input: $input) { ${ACCOUNT} } }`;

const code = errorCode;

describe.each(targets())('ledger accounts GraphQL (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
  });
  afterAll(() => app?.close());

  const create = (input: Record<string, unknown>, tenant = t, token = tenant.user.token) =>
    app.gql(token, CREATE, { input: { clientAccountId: tenant.account.id, ...input } });
  const update = (id: number, input: Record<string, unknown>, token = t.user.token) => app.gql(token, UPDATE, { id, input });

  describe('the default chart of accounts of a new client account', () => {
    it.each([
      ['1500', 'ASSET', 'balanseverdiForOmloepsmiddel', '1500', null, ['BUSINESS_PARTNER']],
      ['1920', 'ASSET', 'balanseverdiForOmloepsmiddel', '1920', null, []],
      ['2050', 'EQUITY', 'egenkapital', '2050', null, []],
      ['2400', 'LIABILITY', 'kortsiktigGjeld', '2400', null, ['BUSINESS_PARTNER']],
      ['2700', 'LIABILITY', 'kortsiktigGjeld', '2740', null, []],
      ['3000', 'INCOME', 'salgsinntekt', '3000', '3', []],
      ['4000', 'EXPENSE', 'varekostnad', '4005', '1', []],
      ['5000', 'EXPENSE', 'loennskostnad', '5000', null, []],
      ['8800', 'EQUITY', 'resultatDisponeringForSAF-T', '8800', null, []],
    ])('"a new client account has the default chart" ("1500 and 2400 require a business partner"): %s is %s with SAF-T %s/%s, default tax code %s, mandatory dimensions %j', async (c, type, category, grouping, taxCode, mandatory) => {
      const res = await app.gql(t.user.token, `{ accountByCode(clientAccountId: ${t.account.id}, code: "${c}") { ${ACCOUNT} } }`);
      expect(res.errors).toBeUndefined();
      expect(res.data.accountByCode).toMatchObject({
        clientAccountId: t.account.id,
        code: c,
        accountType: type,
        saftGroupingCategory: category,
        saftGroupingCode: grouping,
        defaultTaxCode: taxCode ? { code: taxCode } : null,
        isActive: true,
        mandatoryDimensions: mandatory,
        allowedTaxCodes: [],
      });
    });

    it('"accounts is ordered by code" and holds the whole default chart', async () => {
      const res = await app.gql(t.user.token, `{ accounts(clientAccountId: ${other.account.id}, perPage: 500) { nodes { code } meta { page pages perPage records } } }`, {});
      expect(code(res)).toBe('common.forbidden');
      const own = await app.gql(other.user.token, `{ accounts(clientAccountId: ${other.account.id}, perPage: 500) { nodes { code } meta { page pages perPage records } } }`);
      const codes = own.data.accounts.nodes.map((n: { code: string }) => n.code);
      expect(codes).toEqual(DEFAULT_CHART_OF_ACCOUNTS.map((a) => a.code).sort());
      expect(own.data.accounts.meta).toEqual({ page: 1, pages: 1, perPage: 500, records: DEFAULT_CHART_OF_ACCOUNTS.length });
    });
  });

  describe('accounts filters', () => {
    const list = async (args: string) => {
      const res = await app.gql(t.user.token, `{ accounts(clientAccountId: ${t.account.id}, perPage: 500, ${args}) { nodes { code accountType isActive } meta { records } } }`);
      expect(res.errors).toBeUndefined();
      return res.data.accounts.nodes as { code: string; accountType: string; isActive: boolean }[];
    };

    it('"accountType filters by type"', async () => {
      const rows = await list('accountType: INCOME');
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r.accountType === 'INCOME')).toBe(true);
      expect(rows.map((r) => r.code)).toContain('3000');
    });

    it('"codeFrom/codeTo are inclusive; codeTo includes its sub-accounts"', async () => {
      expect((await create({ code: '19201', name: 'Bank sub-account', accountType: 'ASSET' })).errors).toBeUndefined();
      const rows = await list('codeFrom: "1900", codeTo: "1920"');
      expect(rows.map((r) => r.code)).toEqual(['1900', '1920', '19201']);
    });

    it('"freeText matches code and name, case-insensitive"', async () => {
      expect((await list('freeText: "KUNDEFORDR"')).map((r) => r.code)).toEqual(['1500']);
      expect((await list('freeText: "274"')).map((r) => r.code)).toEqual(['2740']);
    });

    it('"isActive defaults to true; null lists all"', async () => {
      const made = (await create({ code: '7791', name: 'Inactive expense', accountType: 'EXPENSE', isActive: false })).data.createAccount;
      expect(made.isActive).toBe(false);
      expect((await list('codeFrom: "7791", codeTo: "7791"')).map((r) => r.code)).toEqual([]);
      expect((await list('codeFrom: "7791", codeTo: "7791", isActive: null')).map((r) => r.code)).toEqual(['7791']);
      expect((await list('codeFrom: "7791", codeTo: "7791", isActive: false')).map((r) => r.code)).toEqual(['7791']);
    });

    it('"page and perPage page the chart"', async () => {
      const res = await app.gql(t.user.token, `{ accounts(clientAccountId: ${t.account.id}, page: 2, perPage: 3) { nodes { code } meta { page perPage } } }`);
      expect(res.data.accounts.nodes).toHaveLength(3);
      expect(res.data.accounts.meta).toEqual({ page: 2, perPage: 3 });
    });
  });

  describe('createAccount', () => {
    it('creates an account with SAF-T grouping, default tax code, mandatory dimensions and a whitelist', async () => {
      const [v1, v11] = [await t.taxCode('1'), await t.taxCode('11')];
      const res = await create({
        code: '6560',
        name: 'Rekvisita',
        accountType: 'EXPENSE',
        saftGroupingCategory: 'annenDriftskostnad',
        saftGroupingCode: '6500',
        defaultTaxCodeId: v1,
        mandatoryDimensions: ['EMPLOYEE', 'PROJECT', 'PROJECT'],
        allowedTaxCodeIds: [v11, v1, v1],
      });
      expect(res.errors).toBeUndefined();
      expect(res.data.createAccount).toMatchObject({
        clientAccountId: t.account.id,
        code: '6560',
        name: 'Rekvisita',
        accountType: 'EXPENSE',
        saftGroupingCategory: 'annenDriftskostnad',
        saftGroupingCode: '6500',
        defaultTaxCodeId: v1,
        defaultTaxCode: { code: '1' },
        isActive: true,
        mandatoryDimensions: ['PROJECT', 'EMPLOYEE'],
        allowedTaxCodes: [{ id: v1, code: '1' }, { id: v11, code: '11' }],
      });
      const byId = await app.gql(t.user.token, `{ account(id: ${res.data.createAccount.id}) { code mandatoryDimensions allowedTaxCodes { code } } }`);
      expect(byId.data.account).toEqual({ code: '6560', mandatoryDimensions: ['PROJECT', 'EMPLOYEE'], allowedTaxCodes: [{ code: '1' }, { code: '11' }] });
    });

    it.each([
      ['123', 'ASSET', 'code: must be 4 to 8 digits'],
      ['123456789', 'ASSET', 'code: must be 4 to 8 digits'],
      ['9000', 'EXPENSE', 'code: must be 4 to 8 digits starting with 1-8'],
      ['0999', 'ASSET', 'code: must be 4 to 8 digits starting with 1-8'],
      ['1599', 'LIABILITY', 'class 1 must have type ASSET'],
      ['2599', 'ASSET', 'class 2 must have type LIABILITY or EQUITY'],
      ['3999', 'EXPENSE', 'class 3 must have type INCOME'],
      ['4999', 'INCOME', 'class 4 must have type EXPENSE'],
      ['6999', 'ASSET', 'class 6 must have type EXPENSE'],
      ['8099', 'EQUITY', 'class 8 must have type INCOME or EXPENSE'],
    ])('"code 4 to 8 digits, first digit 1-8 consistent with accountType": %s %s -> 400', async (c, type, message) => {
      const res = await create({ code: c, name: 'X', accountType: type });
      expect(code(res)).toBe('common.validation_error');
      expect(res.errors?.[0].message).toContain(message);
    });

    it('"code is unique per client account" (400), but another account may use it', async () => {
      const res = await create({ code: '1500', name: 'Dup', accountType: 'ASSET' });
      expect(code(res)).toBe('common.validation_error');
      expect(res.errors?.[0].message).toMatch(/code: '1500' is already used/);
      const elsewhere = await create({ code: '15001', name: 'Own', accountType: 'ASSET' }, other);
      expect(elsewhere.errors).toBeUndefined();
    });

    it.each([
      [{ saftGroupingCategory: 'kortsiktigGjeld' }],
      [{ saftGroupingCode: '2990' }],
    ])('"saftGroupingCategory and saftGroupingCode both or neither": %j -> 400', async (saft) => {
      const res = await create({ code: '2991', name: 'X', accountType: 'LIABILITY', ...saft });
      expect(code(res)).toBe('common.validation_error');
      expect(res.errors?.[0].message).toMatch(/both be set or both be empty/);
    });

    it('"name must not be empty" (400)', async () => {
      const res = await create({ code: '2992', name: '  ', accountType: 'LIABILITY' });
      expect(code(res)).toBe('common.validation_error');
    });

    it('"tax codes must belong to the same client account": default and whitelist (400)', async () => {
      const theirs = await other.taxCode('3');
      const asDefault = await create({ code: '3991', name: 'X', accountType: 'INCOME', defaultTaxCodeId: theirs });
      expect(code(asDefault)).toBe('common.validation_error');
      expect(asDefault.errors?.[0].message).toMatch(/defaultTaxCodeId/);
      const inList = await create({ code: '3992', name: 'X', accountType: 'INCOME', allowedTaxCodeIds: [await t.taxCode('3'), theirs] });
      expect(code(inList)).toBe('common.validation_error');
      // each whitelisted code is checked and named by its position
      expect(inList.errors?.[0].message).toBe(`allowedTaxCodeIds.1: tax code ${theirs} does not exist in client account ${t.account.id}`);
      expect(inList.errors?.[0].extensions?.issues).toEqual([{ path: ['allowedTaxCodeIds', '1'], message: `tax code ${theirs} does not exist in client account ${t.account.id}` }]);
    });

    it('"the default tax code must be in a non-empty whitelist" (400)', async () => {
      const res = await create({ code: '3993', name: 'X', accountType: 'INCOME', defaultTaxCodeId: await t.taxCode('3'), allowedTaxCodeIds: [await t.taxCode('31')] });
      expect(code(res)).toBe('common.validation_error');
      expect(res.errors?.[0].message).toMatch(/defaultTaxCodeId: the default tax code .* must be one of the allowed tax codes/);
    });

    it("another tenant's client account is forbidden (common.forbidden)", async () => {
      const res = await app.gql(t.user.token, CREATE, { input: { clientAccountId: other.account.id, code: '1599', name: 'X', accountType: 'ASSET' } });
      expect(code(res)).toBe('common.forbidden');
    });

    it('a read-only token cannot create accounts (insufficient_scope)', async () => {
      const res = await create({ code: '1598', name: 'X', accountType: 'ASSET' }, t, t.user.readToken);
      expect(code(res)).toBe('insufficient_scope');
    });
  });

  describe('updateAccount', () => {
    const fresh = async (c: string, extra: Record<string, unknown> = {}) => {
      const res = await create({ code: c, name: `Account ${c}`, accountType: 'EXPENSE', ...extra });
      expect(res.errors).toBeUndefined();
      return res.data.createAccount as { id: number; code: string };
    };

    it('changes name, isActive, SAF-T grouping, default tax code; replaces dimensions and whitelist', async () => {
      const a = await fresh('6601', { mandatoryDimensions: ['PROJECT'], allowedTaxCodeIds: [await t.taxCode('1')] });
      const v11 = await t.taxCode('11');
      const res = await update(a.id, {
        name: 'Renamed',
        isActive: false,
        saftGroupingCategory: 'annenDriftskostnad',
        saftGroupingCode: '6695',
        defaultTaxCodeId: v11,
        mandatoryDimensions: ['DEPARTMENT', 'BUSINESS_PARTNER'],
        allowedTaxCodeIds: [v11],
      });
      expect(res.errors).toBeUndefined();
      expect(res.data.updateAccount).toMatchObject({
        name: 'Renamed',
        isActive: false,
        saftGroupingCategory: 'annenDriftskostnad',
        saftGroupingCode: '6695',
        defaultTaxCode: { code: '11' },
        mandatoryDimensions: ['DEPARTMENT', 'BUSINESS_PARTNER'],
        allowedTaxCodes: [{ code: '11' }],
      });
      const cleared = await update(a.id, { mandatoryDimensions: [], allowedTaxCodeIds: [], saftGroupingCategory: null, saftGroupingCode: null, defaultTaxCodeId: null });
      expect(cleared.data.updateAccount).toMatchObject({ mandatoryDimensions: [], allowedTaxCodes: [], saftGroupingCategory: null, saftGroupingCode: null, defaultTaxCode: null });
    });

    it('"omitted fields keep their value": whitelist and dimensions survive a rename', async () => {
      const a = await fresh('6602', { mandatoryDimensions: ['EMPLOYEE'], allowedTaxCodeIds: [await t.taxCode('1')] });
      const res = await update(a.id, { name: 'Only the name' });
      expect(res.data.updateAccount).toMatchObject({ name: 'Only the name', mandatoryDimensions: ['EMPLOYEE'], allowedTaxCodes: [{ code: '1' }] });
    });

    it.each([
      ['6611', { code: '6699' }, 'code: cannot be changed'],
      ['6612', { clientAccountId: -1 }, 'clientAccountId: cannot be changed'],
    ])('"code and clientAccountId are immutable": account %s, %j -> 400', async (accountCode, input, message) => {
      const a = await fresh(accountCode);
      const res = await update(a.id, input);
      expect(code(res)).toBe('common.validation_error');
      expect(res.errors?.[0].message).toContain(message);
      const same = await update(a.id, { code: a.code, clientAccountId: t.account.id, name: 'Same code is fine' });
      expect(same.errors).toBeUndefined();
    });

    it('"accountType must stay consistent with the code class" (400)', async () => {
      const a = await fresh('6603');
      const res = await update(a.id, { accountType: 'INCOME' });
      expect(code(res)).toBe('common.validation_error');
      expect(res.errors?.[0].message).toMatch(/accountType: an account in class 6 must have type EXPENSE/);
    });

    it('"if allowedTaxCodeIds is non-empty and the default tax code is not in it, 400" (both directions)', async () => {
      const [v1, v11, v13] = [await t.taxCode('1'), await t.taxCode('11'), await t.taxCode('13')];
      const a = await fresh('6604', { defaultTaxCodeId: v1 });
      const narrowed = await update(a.id, { allowedTaxCodeIds: [v11, v13] });
      expect(code(narrowed)).toBe('common.validation_error');
      const ok = await update(a.id, { allowedTaxCodeIds: [v1, v11] });
      expect(ok.errors).toBeUndefined();
      const moved = await update(a.id, { defaultTaxCodeId: v13 });
      expect(code(moved)).toBe('common.validation_error');
      const both = await update(a.id, { defaultTaxCodeId: v13, allowedTaxCodeIds: [v13] });
      expect(both.data.updateAccount).toMatchObject({ defaultTaxCode: { code: '13' }, allowedTaxCodes: [{ code: '13' }] });
      const anyCode = await update(a.id, { allowedTaxCodeIds: [], defaultTaxCodeId: v1 });
      expect(anyCode.data.updateAccount).toMatchObject({ defaultTaxCode: { code: '1' }, allowedTaxCodes: [] });
    });

    it('a failed update changes nothing (one transaction)', async () => {
      const a = await fresh('6605', { mandatoryDimensions: ['PROJECT'] });
      const res = await update(a.id, { mandatoryDimensions: ['EMPLOYEE'], allowedTaxCodeIds: [await other.taxCode('1')] });
      expect(code(res)).toBe('common.validation_error');
      const after = await app.gql(t.user.token, `{ account(id: ${a.id}) { mandatoryDimensions allowedTaxCodes { id } } }`);
      expect(after.data.account).toEqual({ mandatoryDimensions: ['PROJECT'], allowedTaxCodes: [] });
    });

    it('"saft grouping both or neither" applies to the resulting state (400)', async () => {
      const a = await fresh('6606', { saftGroupingCategory: 'annenDriftskostnad', saftGroupingCode: '6995' });
      const res = await update(a.id, { saftGroupingCode: null });
      expect(code(res)).toBe('common.validation_error');
    });

    it("another tenant's account is forbidden; a missing one is common.not_found; read-only token gets insufficient_scope", async () => {
      const theirs = await other.ledgerAccount('1500');
      expect(code(await update(theirs, { name: 'Hijack' }))).toBe('common.forbidden');
      expect(code(await app.gql(t.user.token, `{ account(id: ${theirs}) { id } }`))).toBe('common.forbidden');
      expect(code(await app.gql(t.user.token, `{ accountByCode(clientAccountId: ${other.account.id}, code: "1500") { id } }`))).toBe('common.forbidden');
      expect(code(await update(99999999, { name: 'Nothing' }))).toBe('common.not_found');
      expect(code(await app.gql(t.user.token, `{ account(id: 99999999) { id } }`))).toBe('common.not_found');
      expect(code(await app.gql(t.user.token, `{ accountByCode(clientAccountId: ${t.account.id}, code: "1234") { id } }`))).toBe('common.not_found');
      expect(code(await update(await t.ledgerAccount('1500'), { name: 'X' }, t.user.readToken))).toBe('insufficient_scope');
    });
  });
});
