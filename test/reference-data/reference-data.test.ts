// Checks the shipped reference data against the source files copied into src/reference-data/source/
// (never /work/shared: the product and its tests must not read anything outside the repository).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CURRENCIES,
  DEFAULT_CHART_OF_ACCOUNTS,
  STANDARD_TAX_CODES,
  UNITS,
  rateOn,
  type AccountType,
  type DefaultTaxCode,
} from '../../src/reference-data/index.ts';

const SOURCE_DIR = new URL('../../src/reference-data/source/', import.meta.url);

/** RFC 4180 CSV (quoted fields, doubled quotes, CRLF or LF), first row as header. Strips a UTF-8 BOM. */
function readCsv(fileName: string, separator: string): Record<string, string>[] {
  const text = readFileSync(new URL(fileName, SOURCE_DIR), 'utf8').replace(/^\uFEFF/, '');
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c === '"') {
      quoted = true;
    } else if (c === separator) {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      field = '';
      if (row.some((f) => f !== '')) rows.push(row);
      row = [];
    } else {
      field += c;
    }
  }
  row.push(field);
  if (row.some((f) => f !== '')) rows.push(row);
  const [header, ...data] = rows;
  return data.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ''])));
}

const grouping = readCsv('naeringsspesifikasjon.csv', ';');
const standardTaxCodes = readCsv('Standard_Tax_Codes.csv', ';');
const sats = readCsv('sats_flat.csv', ',');
const mvaKodeSaft = readCsv('mvaKodeSAFT_flat.csv', ',');

const taxCodeByCode = new Map(STANDARD_TAX_CODES.map((t) => [t.code, t]));
function taxCode(code: string): DefaultTaxCode {
  const found = taxCodeByCode.get(code);
  if (!found) throw new Error(`no tax code ${code}`);
  return found;
}

/** sats_flat rate_percent ('25', '11.11') written the way TaxRatePeriod writes it ('25.00'). */
function twoDecimals(ratePercent: string): string {
  const [whole, fraction = ''] = ratePercent.split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}

describe('reference data: source files', () => {
  it('the copied source files are present and parse (naeringsspesifikasjon 527 rows, 30 standard tax codes)', () => {
    expect(grouping).toHaveLength(527);
    expect(standardTaxCodes).toHaveLength(30);
    expect(sats.length).toBeGreaterThan(0);
    expect(mvaKodeSaft.length).toBeGreaterThan(0);
  });
});

describe('reference data: chart of accounts', () => {
  const groupingPairs = new Set(grouping.map((r) => `${r.GroupingCategory}|${r.GroupingCode}`));

  it.each(DEFAULT_CHART_OF_ACCOUNTS.map((a) => [a.code, a.saftGroupingCategory, a.saftGroupingCode]))(
    "account %s maps to a SAF-T 1.30 grouping (%s/%s) that exists in naeringsspesifikasjon.csv",
    (_code, category, code) => {
      expect(groupingPairs.has(`${category}|${code}`)).toBe(true);
    },
  );

  it('account codes are unique 4-digit strings', () => {
    const codes = DEFAULT_CHART_OF_ACCOUNTS.map((a) => a.code);
    for (const code of codes) expect(code).toMatch(/^[1-8]\d{3}$/);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('accounts are listed in ascending code order', () => {
    const codes = DEFAULT_CHART_OF_ACCOUNTS.map((a) => a.code);
    expect(codes).toEqual([...codes].sort());
  });

  // Class 1 assets; 20xx equity, 21xx-29xx liabilities; 3 income; 4-7 expenses;
  // 80xx financial income, 81xx-87xx financial expenses and tax, 88xx-89xx appropriation (equity).
  function expectedType(code: string): AccountType {
    const n = Number(code);
    if (n < 2000) return 'ASSET';
    if (n < 2100) return 'EQUITY';
    if (n < 3000) return 'LIABILITY';
    if (n < 4000) return 'INCOME';
    if (n < 8000) return 'EXPENSE';
    if (n < 8100) return 'INCOME';
    if (n < 8800) return 'EXPENSE';
    return 'EQUITY';
  }

  it.each(DEFAULT_CHART_OF_ACCOUNTS.map((a) => [a.code, a.accountType]))(
    'account %s has the type its class implies (1 asset, 20 equity, 21-29 liability, 3 income, 4-7 expense, 80 income, 81-87 expense, 88-89 equity): %s',
    (code, accountType) => {
      expect(accountType).toBe(expectedType(code));
    },
  );

  it('the accounts the product relies on are present', () => {
    const codes = new Set(DEFAULT_CHART_OF_ACCOUNTS.map((a) => a.code));
    const required = [
      '1200', '1250', '1400', '1500', '1570', '1580', '1700', '1749', '1900', '1920', '1950',
      '2000', '2020', '2030', '2050', '2080', '2400', '2500', '2510', '2600',
      '2700', '2701', '2702', '2710', '2711', '2712', '2740', '2770', '2780', '2785', '2800',
      '2900', '2940', '2960', '2990',
      '3000', '3030', '3033', '3100', '3200', '3600', '3900', '4000', '4300',
      '5000', '5090', '5400', '5420', '6000', '6300', '6340', '6540', '6800', '6900',
      '7000', '7100', '7320', '7500', '7770', '7790',
      '8040', '8050', '8060', '8150', '8160', '8300', '8320', '8800', '8920', '8960',
    ];
    expect(required.filter((c) => !codes.has(c))).toEqual([]);
  });

  it('names are present in Norwegian and English', () => {
    for (const a of DEFAULT_CHART_OF_ACCOUNTS) {
      expect(a.name.trim()).not.toBe('');
      expect(a.nameEn.trim()).not.toBe('');
    }
  });

  it('every defaultTaxCode exists in STANDARD_TAX_CODES', () => {
    const missing = DEFAULT_CHART_OF_ACCOUNTS.filter((a) => a.defaultTaxCode !== null && !taxCodeByCode.has(a.defaultTaxCode));
    expect(missing).toEqual([]);
  });

  it('balance sheet accounts (classes 1 and 2) have no default tax code', () => {
    const withCode = DEFAULT_CHART_OF_ACCOUNTS.filter((a) => a.code < '3000' && a.defaultTaxCode !== null);
    expect(withCode).toEqual([]);
  });

  it('income accounts default to sales codes and expense accounts to purchase codes', () => {
    for (const a of DEFAULT_CHART_OF_ACCOUNTS) {
      if (a.defaultTaxCode === null) continue;
      const direction = taxCode(a.defaultTaxCode).direction;
      expect({ code: a.code, direction }).toEqual({ code: a.code, direction: a.accountType === 'INCOME' ? 'OUTPUT' : 'INPUT' });
    }
  });

  it.each([
    ['3000', '3'],
    ['3030', '31'],
    ['3033', '33'],
    ['3100', '5'],
    ['3200', '6'],
    ['4000', '1'],
    ['6300', '1'],
  ])('account %s defaults to VAT code %s', (code, expected) => {
    expect(DEFAULT_CHART_OF_ACCOUNTS.find((a) => a.code === code)?.defaultTaxCode).toBe(expected);
  });
});

describe('reference data: standard tax codes', () => {
  it("the set of tax codes equals Standard_Tax_Codes.csv's codes", () => {
    const ours = STANDARD_TAX_CODES.map((t) => t.code).sort();
    const theirs = standardTaxCodes.map((r) => r.Code).sort();
    expect(ours).toEqual(theirs);
    expect(new Set(ours).size).toBe(ours.length);
  });

  // A code's satstype comes from mvaKodeSAFT; codes the VAT return does not list (0, 7, 20, 21, 22)
  // carry no rate (see tax-codes.ts for why 21/22 get none although the SAF-T list gives a category).
  const satstypeOf = new Map(mvaKodeSaft.map((r) => [r.standard_tax_code, r.satstype]));

  it.each(STANDARD_TAX_CODES.map((t) => [t.code, satstypeOf.get(t.code) ?? '(not in mvaKodeSAFT)']))(
    'code %s carries every rate period of sats_flat.csv for its satstype (%s), and nothing else',
    (code) => {
      const satstype = satstypeOf.get(code) ?? '';
      const expected = sats
        .filter((s) => satstype !== '' && s.satstype === satstype)
        .map((s) => ({ ratePercent: twoDecimals(s.rate_percent), validFrom: s.valid_from || null, validTo: s.valid_to || null }))
        .sort((x, y) => (x.validFrom ?? '').localeCompare(y.validFrom ?? ''));
      expect(taxCode(code).rates).toEqual(expected);
    },
  );

  it('rate periods of a code do not overlap', () => {
    for (const t of STANDARD_TAX_CODES) {
      for (let i = 1; i < t.rates.length; i++) {
        const prev = t.rates[i - 1];
        expect(prev.validTo, `code ${t.code}`).not.toBeNull();
        expect((prev.validTo ?? '') < (t.rates[i].validFrom ?? ''), `code ${t.code}`).toBe(true);
      }
    }
  });

  it.each(mvaKodeSaft.map((r) => [r.standard_tax_code, r.valid_from || null, r.valid_to || null]))(
    'code %s has the validity mvaKodeSAFT gives it (%s to %s)',
    (code, validFrom, validTo) => {
      expect({ validFrom: taxCode(code).validFrom, validTo: taxCode(code).validTo }).toEqual({ validFrom, validTo });
    },
  );

  it.each([
    // Sales and withdrawals, including zero-rated and outside-the-Act turnover, are OUTPUT.
    ...['3', '31', '32', '33', '5', '51', '52', '6'].map((c) => [c, 'OUTPUT']),
    // Domestic input VAT, VAT paid on import and the reverse-charge purchases 81-92 are INPUT.
    ...['1', '11', '12', '13', '14', '15', '81', '82', '83', '84', '85', '86', '87', '88', '89', '91', '92'].map((c) => [c, 'INPUT']),
    // Codes that are not reported in the VAT return are NONE.
    ...['0', '7', '20', '21', '22'].map((c) => [c, 'NONE']),
  ])('code %s has direction %s', (code, direction) => {
    expect(taxCode(code).direction).toBe(direction);
  });

  it('every code has a Norwegian and an English name', () => {
    for (const t of STANDARD_TAX_CODES) {
      expect(t.name.trim()).not.toBe('');
      expect(t.nameEn.trim()).not.toBe('');
    }
  });

  it.each([
    ['3', '2025-01-01', '25.00'],
    ['1', '2025-01-01', '25.00'],
    ['31', '2025-01-01', '15.00'],
    ['31', '2012-01-01', '15.00'],
    ['33', '2015-12-31', '8.00'],
    ['33', '2016-01-01', '10.00'],
    ['33', '2019-06-30', '12.00'],
    ['33', '2020-04-01', '6.00'],
    ['33', '2021-01-01', '6.00'],
    ['33', '2021-09-30', '6.00'],
    ['33', '2021-10-01', '12.00'],
    ['33', '2022-01-01', '12.00'],
    ['32', '2025-01-01', '11.11'],
    ['5', '2025-01-01', '0.00'],
    ['52', '2025-01-01', '0.00'],
  ])('rateOn(%s, %s) is %s (sats.xml rate in force on that date)', (code, date, expected) => {
    expect(rateOn(taxCode(code), date)).toBe(expected);
  });

  it.each([
    ['6', '2025-01-01', 'code without a rate'],
    ['21', '2025-01-01', 'import basis code: no VAT is computed on it'],
    ['31', '2011-12-31', 'no sats.xml period before 2012-01-01'],
    ['52', '2016-12-31', 'code not yet valid'],
  ])('rateOn(%s, %s) is null: %s', (code, date) => {
    expect(rateOn(taxCode(code), date)).toBeNull();
  });

  it('rateOn rejects a date that is not YYYY-MM-DD', () => {
    expect(() => rateOn(taxCode('3'), '2025-1-1')).toThrow(RangeError);
  });
});

describe('reference data: units', () => {
  it('UN/ECE Recommendation 20 codes are unique', () => {
    const codes = UNITS.map((u) => u.unEceRec20Code);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('symbols are unique', () => {
    const symbols = UNITS.map((u) => u.symbol);
    expect(new Set(symbols).size).toBe(symbols.length);
  });

  it('a package unit uses the Rec 20 form of its Rec 21 code ("X" + Rec 21 code)', () => {
    for (const u of UNITS) {
      if (u.unEceRec21Code !== null) expect(u.unEceRec20Code).toBe(`X${u.unEceRec21Code}`);
      expect(u.unEceRec20Code).toMatch(/^[A-Z0-9]{2,3}$/);
    }
  });

  it.each([
    ['stk', 'H87'],
    ['time', 'HUR'],
    ['kg', 'KGM'],
    ['l', 'LTR'],
    ['m', 'MTR'],
    ['m²', 'MTK'],
    ['eske', 'XBX'],
  ])('unit %s is Rec 20 %s', (symbol, code) => {
    expect(UNITS.find((u) => u.symbol === symbol)?.unEceRec20Code).toBe(code);
  });
});

describe('reference data: currencies', () => {
  it('currency codes are unique 3-letter ISO 4217 codes', () => {
    const codes = CURRENCIES.map((c) => c.code);
    for (const code of codes) expect(code).toMatch(/^[A-Z]{3}$/);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it.each([
    ['NOK', 2],
    ['EUR', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['ISK', 0],
  ])('%s has %i minor units (ISO 4217)', (code, minorUnits) => {
    expect(CURRENCIES.find((c) => c.code === code)?.minorUnits).toBe(minorUnits);
  });
});
