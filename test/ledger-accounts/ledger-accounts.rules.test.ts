import { describe, expect, it } from 'vitest';
import type { AccountType, DimensionType } from '../../src/generated/prisma/enums.ts';
import {
  accountCodeError,
  allowedAccountTypes,
  isTaxCodeAllowed,
  missingDimensions,
  saftGroupingError,
  sortDimensions,
} from '../../src/modules/ledger-accounts/ledger-accounts.rules.ts';
import { DEFAULT_CHART_OF_ACCOUNTS } from '../../src/reference-data/index.ts';

describe('ledger account rules', () => {
  it.each<[string, AccountType]>([
    ['1500', 'ASSET'],
    ['19201', 'ASSET'],
    ['2400', 'LIABILITY'],
    ['2050', 'EQUITY'],
    ['3000', 'INCOME'],
    ['4000', 'EXPENSE'],
    ['5000', 'EXPENSE'],
    ['6300', 'EXPENSE'],
    ['7790', 'EXPENSE'],
    ['8050', 'INCOME'],
    ['8150', 'EXPENSE'],
    ['8300', 'EXPENSE'],
    ['8800', 'EQUITY'],
    ['8960', 'EQUITY'],
    ['12345678', 'ASSET'],
  ])('"code 4 to 8 digits, class consistent with type": %s %s is allowed', (code, type) => {
    expect(accountCodeError(code, type)).toBeNull();
  });

  it.each<[string, AccountType, RegExp]>([
    ['150', 'ASSET', /4 to 8 digits/],
    ['123456789', 'ASSET', /4 to 8 digits/],
    ['0100', 'ASSET', /starting with 1-8/],
    ['9000', 'EXPENSE', /starting with 1-8/],
    ['15A0', 'ASSET', /4 to 8 digits/],
    [' 1500', 'ASSET', /4 to 8 digits/],
    ['1500', 'LIABILITY', /class 1 must have type ASSET/],
    ['2400', 'ASSET', /class 2 must have type LIABILITY or EQUITY/],
    ['3000', 'EXPENSE', /class 3 must have type INCOME/],
    ['4000', 'INCOME', /class 4 must have type EXPENSE/],
    ['7000', 'ASSET', /class 7 must have type EXPENSE/],
    ['8050', 'ASSET', /class 8 must have type INCOME or EXPENSE/],
    ['8050', 'EQUITY', /class 8 must have type INCOME or EXPENSE/],
    ['8800', 'LIABILITY', /class 8 must have type INCOME or EXPENSE or EQUITY/],
  ])('"code and type must agree": %s %s is rejected', (code, type, message) => {
    expect(accountCodeError(code, type)).toMatch(message);
  });

  it('"1 ASSET, 2 LIABILITY or EQUITY, 3 INCOME, 4-7 EXPENSE, 8 INCOME or EXPENSE (88xx-89xx also EQUITY)"', () => {
    expect(Object.fromEntries(['1000', '2000', '3000', '4000', '5000', '6000', '7000', '8000', '8800', '8900'].map((c) => [c, allowedAccountTypes(c)]))).toEqual({
      1000: ['ASSET'],
      2000: ['LIABILITY', 'EQUITY'],
      3000: ['INCOME'],
      4000: ['EXPENSE'],
      5000: ['EXPENSE'],
      6000: ['EXPENSE'],
      7000: ['EXPENSE'],
      8000: ['INCOME', 'EXPENSE'],
      8800: ['INCOME', 'EXPENSE', 'EQUITY'],
      8900: ['INCOME', 'EXPENSE', 'EQUITY'],
    });
  });

  it('every account of the default chart satisfies the code/type rule and has a SAF-T grouping pair', () => {
    for (const a of DEFAULT_CHART_OF_ACCOUNTS) {
      expect([a.code, accountCodeError(a.code, a.accountType)]).toEqual([a.code, null]);
      expect([a.code, saftGroupingError(a.saftGroupingCategory, a.saftGroupingCode)]).toEqual([a.code, null]);
    }
  });

  it.each([
    [null, null, true],
    ['kortsiktigGjeld', '2400', true],
    ['kortsiktigGjeld', null, false],
    [null, '2400', false],
    ['', '2400', false],
  ])('"SAF-T grouping category and code: both or neither": %s/%s -> %s', (category, code, ok) => {
    expect(saftGroupingError(category, code) === null).toBe(ok);
  });

  describe('isTaxCodeAllowed: "an empty whitelist allows any tax code; otherwise only the listed ones"', () => {
    const open = { allowedTaxCodes: [] };
    const listed = { allowedTaxCodes: [{ taxCodeId: 7 }, { taxCodeId: 9 }] };
    it.each([
      [open, 7, true],
      [open, 123, true],
      [listed, 7, true],
      [listed, 9, true],
      [listed, 8, false],
      [listed, null, true],
      [listed, undefined, true],
    ])('%j with %s -> %s', (account, taxCodeId, ok) => {
      expect(isTaxCodeAllowed(account, taxCodeId)).toBe(ok);
    });
  });

  describe('missingDimensions: "a posting line must carry every mandatory dimension of its account"', () => {
    const account = (...d: DimensionType[]) => ({ mandatoryDimensions: d.map((dimensionType) => ({ dimensionType })) });
    it.each<[DimensionType[], DimensionType[], DimensionType[]]>([
      [[], [], []],
      [[], ['PROJECT'], []],
      [['PROJECT'], [], ['PROJECT']],
      [['PROJECT'], ['PROJECT'], []],
      [['EMPLOYEE', 'PROJECT', 'DEPARTMENT'], ['DEPARTMENT'], ['PROJECT', 'EMPLOYEE']],
      [['BUSINESS_PARTNER'], ['PROJECT', 'DEPARTMENT', 'EMPLOYEE'], ['BUSINESS_PARTNER']],
    ])('mandatory %j, provided %j -> missing %j', (mandatory, provided, missing) => {
      expect(missingDimensions(account(...mandatory), provided)).toEqual(missing);
    });

    it('accepts any iterable of provided dimensions (e.g. a Set)', () => {
      expect(missingDimensions(account('PROJECT', 'EMPLOYEE'), new Set<DimensionType>(['EMPLOYEE']))).toEqual(['PROJECT']);
    });
  });

  it('sortDimensions: distinct, in enum order', () => {
    expect(sortDimensions(['EMPLOYEE', 'PROJECT', 'EMPLOYEE', 'BUSINESS_PARTNER'])).toEqual(['PROJECT', 'BUSINESS_PARTNER', 'EMPLOYEE']);
  });
});
