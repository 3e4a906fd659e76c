import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STANDARD_TAX_CODES } from '../../src/reference-data/index.ts';
import { startTestApp, targets, type TestApp, errorCode } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

const TAX_CODE = `id clientAccountId code standardTaxCode name nameEn direction validFrom validTo isActive
  rates { ratePercent validFrom validTo }`;
const CREATE = `mutation($input: CreateTaxCodeInput!) { createTaxCode(input: $input) { ${TAX_CODE} } }`;
const UPDATE = `mutation($id: Int!, $input: UpdateTaxCodeInput!) { updateTaxCode(id: $id, input: $input) { ${TAX_CODE} } }`;
const SET_RATES = `mutation($id: Int!, $rates: [TaxRateInput!]!) { setTaxRates(taxCodeId: $id, rates: $rates) { ${TAX_CODE} } }`;

const code = errorCode;

describe.each(targets())('tax codes GraphQL (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
  });
  afterAll(() => app?.close());

  const create = (input: Record<string, unknown>, tenant = t, token = tenant.user.token) =>
    app.gql(token, CREATE, { input: { clientAccountId: tenant.account.id, direction: 'OUTPUT', name: 'Custom', standardTaxCode: '3', ...input } });
  const rateOn = async (id: number, on: string) => (await app.gql(t.user.token, `{ taxCode(id: ${id}) { rate(on: "${on}") } }`)).data.taxCode.rate;

  describe('the standard tax codes of a new client account', () => {
    it('"a new client account has the 30 SAF-T standard tax codes", ordered by number', async () => {
      const res = await app.gql(t.user.token, `{ taxCodes(clientAccountId: ${t.account.id}) { nodes { code standardTaxCode direction } } }`);
      expect(res.errors).toBeUndefined();
      expect(res.data.taxCodes.nodes).toHaveLength(30);
      expect(res.data.taxCodes.nodes.map((c: { code: string }) => c.code)).toEqual(STANDARD_TAX_CODES.map((c) => c.code));
      expect(res.data.taxCodes.nodes.every((c: { code: string; standardTaxCode: string }) => c.code === c.standardTaxCode)).toBe(true);
    });

    it.each([
      ['3', '2025-01-01', '25.00'],
      ['33', '2021-01-01', '6.00'],
      ['33', '2019-06-01', '12.00'],
      ['33', '2025-01-01', '12.00'],
      ['31', '2025-01-01', '15.00'],
      ['12', '2025-01-01', '11.11'],
      ['5', '2025-01-01', '0.00'],
      ['6', '2025-01-01', null],
    ])('"the standard codes carry their rate history": code %s on %s = %s', async (c, on, rate) => {
      expect(await rateOn(await t.taxCode(c), on)).toBe(rate);
    });
  });

  describe('createTaxCode', () => {
    it('creates a custom code with its rate history', async () => {
      const res = await create({
        code: 'S25',
        name: 'Salg høy sats, egen',
        nameEn: 'Sales standard rate, own',
        validFrom: '2020-01-01',
        rates: [
          { ratePercent: '26', validFrom: '2027-01-01' },
          { ratePercent: '25', validFrom: '2020-01-01', validTo: '2026-12-31' },
        ],
      });
      expect(res.errors).toBeUndefined();
      expect(res.data.createTaxCode).toMatchObject({
        clientAccountId: t.account.id,
        code: 'S25',
        standardTaxCode: '3',
        name: 'Salg høy sats, egen',
        nameEn: 'Sales standard rate, own',
        direction: 'OUTPUT',
        validFrom: '2020-01-01',
        validTo: null,
        isActive: true,
        rates: [
          { ratePercent: '25.00', validFrom: '2020-01-01', validTo: '2026-12-31' },
          { ratePercent: '26.00', validFrom: '2027-01-01', validTo: null },
        ],
      });
      expect(await rateOn(res.data.createTaxCode.id, '2026-12-31')).toBe('25.00');
      expect(await rateOn(res.data.createTaxCode.id, '2027-01-01')).toBe('26.00');
      const list = await app.gql(t.user.token, `{ taxCodes(clientAccountId: ${t.account.id}) { nodes { code } } }`);
      expect(list.data.taxCodes.nodes.at(-1)).toEqual({ code: 'S25' });
    });

    it('"standardTaxCode may be NA"; a code without rates computes no VAT', async () => {
      const res = await create({ code: 'NA1', standardTaxCode: 'NA', direction: 'NONE' });
      expect(res.errors).toBeUndefined();
      expect(res.data.createTaxCode).toMatchObject({ standardTaxCode: 'NA', rates: [] });
      expect(await rateOn(res.data.createTaxCode.id, '2025-01-01')).toBeNull();
    });

    it.each([
      ['"code unique in the client account"', { code: '3' }, /code: '3' is already used/],
      ['"code is 1 to 10 letters, digits, ., _ or -"', { code: 'ALL TOO LONG' }, /code: must be 1 to 10/],
      ['"standardTaxCode must be a SAF-T standard code or NA"', { code: 'X1', standardTaxCode: '2' }, /standardTaxCode: must be one of the SAF-T standard tax codes/],
      ['"ratePercent at most 100"', { code: 'X2', rates: [{ ratePercent: '100.5' }] }, /rates.0.ratePercent: must be between 0 and 100/],
      ['"ratePercent at least 0"', { code: 'X3', rates: [{ ratePercent: '-1' }] }, /rates.0.ratePercent: must be between 0 and 100/],
      ['"ratePercent at most 2 decimals"', { code: 'X4', rates: [{ ratePercent: '12.125' }] }, /rates.0.ratePercent: must have at most 2 decimals/],
      ['"rate periods must not overlap"', { code: 'X5', rates: [{ ratePercent: '25', validTo: '2020-12-31' }, { ratePercent: '26', validFrom: '2020-12-31' }] }, /rates: rate periods 0 .* and 1 .* overlap/],
      ['"a rate period is not reversed"', { code: 'X6', rates: [{ ratePercent: '25', validFrom: '2021-01-01', validTo: '2020-12-31' }] }, /rates.0.validTo: must not be before validFrom/],
      ['"the code validity is not reversed"', { code: 'X7', validFrom: '2021-01-01', validTo: '2020-12-31' }, /validTo: must not be before validFrom/],
      ['"name must not be empty"', { code: 'X8', name: '' }, /name/],
    ])('%s (400)', async (_rule, input, message) => {
      const res = await create(input);
      expect(code(res)).toBe('common.validation_error');
      expect(res.errors?.[0].message).toMatch(message);
    });

    it("another tenant's client account is forbidden; a read-only token gets insufficient_scope", async () => {
      const res = await app.gql(t.user.token, CREATE, { input: { clientAccountId: other.account.id, code: 'Z1', direction: 'OUTPUT', name: 'X', standardTaxCode: '3' } });
      expect(code(res)).toBe('common.forbidden');
      expect(code(await create({ code: 'Z2' }, t, t.user.readToken))).toBe('insufficient_scope');
    });
  });

  describe('updateTaxCode', () => {
    it('changes name, nameEn, validity and isActive; "taxCodes lists active codes by default, null lists all"', async () => {
      const made = (await create({ code: 'U1' })).data.createTaxCode;
      const res = await app.gql(t.user.token, UPDATE, { id: made.id, input: { name: 'Renamed', nameEn: null, validFrom: '2024-01-01', validTo: '2024-12-31', isActive: false } });
      expect(res.errors).toBeUndefined();
      expect(res.data.updateTaxCode).toMatchObject({ name: 'Renamed', nameEn: null, validFrom: '2024-01-01', validTo: '2024-12-31', isActive: false });
      const active = await app.gql(t.user.token, `{ taxCodes(clientAccountId: ${t.account.id}) { nodes { code } } }`);
      expect(active.data.taxCodes.nodes.map((c: { code: string }) => c.code)).not.toContain('U1');
      const all = await app.gql(t.user.token, `{ taxCodes(clientAccountId: ${t.account.id}, isActive: null) { nodes { code } } }`);
      expect(all.data.taxCodes.nodes.map((c: { code: string }) => c.code)).toContain('U1');
    });

    it('"validFrom must not be after validTo" against the stored bound (400)', async () => {
      const made = (await create({ code: 'U2', validTo: '2020-12-31' })).data.createTaxCode;
      const res = await app.gql(t.user.token, UPDATE, { id: made.id, input: { validFrom: '2021-01-01' } });
      expect(code(res)).toBe('common.validation_error');
    });

    it("another tenant's tax code is forbidden; a missing one is common.not_found; read-only token gets insufficient_scope", async () => {
      const theirs = await other.taxCode('3');
      expect(code(await app.gql(t.user.token, UPDATE, { id: theirs, input: { name: 'Hijack' } }))).toBe('common.forbidden');
      expect(code(await app.gql(t.user.token, `{ taxCode(id: ${theirs}) { id } }`))).toBe('common.forbidden');
      expect(code(await app.gql(t.user.token, `{ taxCodes(clientAccountId: ${other.account.id}) { nodes { id } } }`))).toBe('common.forbidden');
      expect(code(await app.gql(t.user.token, UPDATE, { id: 99999999, input: { name: 'X' } }))).toBe('common.not_found');
      expect(code(await app.gql(t.user.token, `{ taxCode(id: 99999999) { id } }`))).toBe('common.not_found');
      expect(code(await app.gql(t.user.readToken, UPDATE, { id: await t.taxCode('3'), input: { name: 'X' } }))).toBe('insufficient_scope');
    });
  });

  describe('setTaxRates', () => {
    it('"changing the standard codes\' rates is allowed (the law changes)": replaces the history of code 33', async () => {
      const tenant = await app.seed.tenant();
      const id = await tenant.taxCode('33');
      const res = await app.gql(tenant.user.token, SET_RATES, {
        id,
        rates: [
          { ratePercent: '12', validFrom: '2021-10-01', validTo: '2026-12-31' },
          { ratePercent: '6', validFrom: '2020-04-01', validTo: '2021-09-30' },
          { ratePercent: '14', validFrom: '2027-01-01' },
        ],
      });
      expect(res.errors).toBeUndefined();
      expect(res.data.setTaxRates.rates).toEqual([
        { ratePercent: '6.00', validFrom: '2020-04-01', validTo: '2021-09-30' },
        { ratePercent: '12.00', validFrom: '2021-10-01', validTo: '2026-12-31' },
        { ratePercent: '14.00', validFrom: '2027-01-01', validTo: null },
      ]);
      const on = async (date: string) => (await app.gql(tenant.user.token, `{ taxCode(id: ${id}) { rate(on: "${date}") } }`)).data.taxCode.rate;
      expect(await on('2027-06-01')).toBe('14.00');
      expect(await on('2019-01-01')).toBeNull();
    });

    it('"setTaxRates keeps periods non-overlapping": an overlapping history is refused and the old one kept (400)', async () => {
      const id = await t.taxCode('3');
      const res = await app.gql(t.user.token, SET_RATES, { id, rates: [{ ratePercent: '25', validFrom: '2005-01-01' }, { ratePercent: '26', validFrom: '2027-01-01' }] });
      expect(code(res)).toBe('common.validation_error');
      expect(await rateOn(id, '2025-01-01')).toBe('25.00');
      const after = await app.gql(t.user.token, `{ taxCode(id: ${id}) { rates { ratePercent validFrom validTo } } }`);
      expect(after.data.taxCode.rates).toEqual([{ ratePercent: '25.00', validFrom: '2005-01-01', validTo: null }]);
    });

    it('an empty list removes every rate', async () => {
      const made = (await create({ code: 'R0', rates: [{ ratePercent: '10' }] })).data.createTaxCode;
      const res = await app.gql(t.user.token, SET_RATES, { id: made.id, rates: [] });
      expect(res.data.setTaxRates.rates).toEqual([]);
    });

    it("another tenant's tax code is forbidden; a missing one is common.not_found; read-only token gets insufficient_scope", async () => {
      const rates = [{ ratePercent: '1' }];
      expect(code(await app.gql(t.user.token, SET_RATES, { id: await other.taxCode('3'), rates }))).toBe('common.forbidden');
      expect(code(await app.gql(t.user.token, SET_RATES, { id: 99999999, rates }))).toBe('common.not_found');
      expect(code(await app.gql(t.user.readToken, SET_RATES, { id: await t.taxCode('3'), rates }))).toBe('insufficient_scope');
    });
  });
});
