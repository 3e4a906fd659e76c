import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/shared/scalars.ts';
import {
  checkRates,
  compareTaxCodes,
  isReversed,
  overlappingPeriods,
  rateInForce,
  STANDARD_TAX_CODE_VALUES,
  TAX_CODE_RE,
  type Period,
} from '../../src/modules/tax-codes/tax-codes.rules.ts';
import { AppError } from '../../src/shared/errors.ts';

const d = (s: string | null) => (s ? new Date(`${s}T00:00:00Z`) : null);
const p = (from: string | null, to: string | null): Period => ({ validFrom: d(from), validTo: d(to) });

describe('tax code rules', () => {
  describe('overlappingPeriods: "rate periods must not overlap (bounds inclusive, null open)"', () => {
    it.each<[string, Period[], [number, number] | null]>([
      ['no periods', [], null],
      ['one open period', [p(null, null)], null],
      ['back to back', [p('2020-01-01', '2020-12-31'), p('2021-01-01', null)], null],
      ['back to back, given out of order', [p('2021-01-01', null), p(null, '2020-12-31')], null],
      ['gap between periods', [p('2018-01-01', '2018-12-31'), p('2020-01-01', '2020-12-31')], null],
      ['sharing the last/first day', [p(null, '2020-12-31'), p('2020-12-31', null)], [0, 1]],
      ['two open-ended', [p('2020-01-01', null), p('2021-01-01', null)], [0, 1]],
      ['one inside another', [p('2020-01-01', '2020-12-31'), p('2019-01-01', '2025-12-31')], [0, 1]],
      ['two undated', [p(null, null), p(null, null)], [0, 1]],
      ['third overlaps the first', [p('2010-01-01', '2019-12-31'), p('2022-01-01', null), p('2015-01-01', '2015-12-31')], [0, 2]],
    ])('%s', (_name, periods, clash) => {
      expect(overlappingPeriods(periods)).toEqual(clash);
    });
  });

  it.each<[Period, boolean]>([
    [p('2020-01-02', '2020-01-01'), true],
    [p('2020-01-01', '2020-01-01'), false],
    [p(null, '2020-01-01'), false],
    [p('2020-01-01', null), false],
  ])('isReversed: "validFrom must not be after validTo": %j -> %s', (period, reversed) => {
    expect(isReversed(period)).toBe(reversed);
  });

  it('compareTaxCodes: "numeric codes by number, then the others by text"', () => {
    const codes = ['33', 'B2', '3', '11', 'A1', '1', '0', '92', '5'].map((code) => ({ code }));
    expect(codes.sort(compareTaxCodes).map((c) => c.code)).toEqual(['0', '1', '3', '5', '11', '33', '92', 'A1', 'B2']);
  });

  it('rateInForce: "the period whose inclusive bounds contain the date"', () => {
    const rates = [{ ...p('2018-01-01', '2020-03-31'), r: '12' }, { ...p('2020-04-01', '2021-09-30'), r: '6' }, { ...p('2021-10-01', null), r: '12b' }];
    expect(rateInForce(rates, d('2020-03-31')!)?.r).toBe('12');
    expect(rateInForce(rates, d('2020-04-01')!)?.r).toBe('6');
    expect(rateInForce(rates, d('2030-01-01')!)?.r).toBe('12b');
    expect(rateInForce(rates, d('2017-12-31')!)).toBeNull();
  });

  it('"standardTaxCode is one of the 30 SAF-T standard codes or NA"', () => {
    expect(STANDARD_TAX_CODE_VALUES.size).toBe(31);
    for (const c of ['0', '1', '3', '33', '92', 'NA']) expect(STANDARD_TAX_CODE_VALUES.has(c)).toBe(true);
    for (const c of ['2', '4', '99', 'na', '']) expect(STANDARD_TAX_CODE_VALUES.has(c)).toBe(false);
  });

  it.each([
    ['3', true],
    ['A1', true],
    ['MVA-25.X', true],
    ['1234567890', true],
    ['12345678901', false],
    ['', false],
    ['-1', false],
    ['a b', false],
  ])('"a custom tax code is 1 to 10 letters, digits, ., _ or -": %j -> %s', (code, ok) => {
    expect(TAX_CODE_RE.test(code)).toBe(ok);
  });

  describe('checkRates', () => {
    const rate = (ratePercent: string, validFrom: string | null = null, validTo: string | null = null) => ({ ratePercent: new Decimal(ratePercent), validFrom: d(validFrom), validTo: d(validTo) });
    const fails = (rates: ReturnType<typeof rate>[]) => {
      try {
        checkRates(rates);
      } catch (e) {
        expect(e).toBeInstanceOf(AppError);
        return (e as AppError).message;
      }
      return null;
    };

    it.each([
      ['0', null],
      ['100', null],
      ['11.11', null],
      ['25.00', null],
      ['100.01', /rates.0.ratePercent: must be between 0 and 100/],
      ['-0.01', /rates.0.ratePercent: must be between 0 and 100/],
      ['12.345', /rates.0.ratePercent: must have at most 2 decimals/],
    ])('"ratePercent 0..100 with at most 2 decimals": %s', (value, error) => {
      const message = fails([rate(value)]);
      if (error) expect(message).toMatch(error);
      else expect(message).toBeNull();
    });

    it('"validFrom must not be after validTo" names the rate', () => {
      expect(fails([rate('25', '2020-01-01', '2020-12-31'), rate('25', '2022-01-01', '2021-12-31')])).toMatch(/rates.1.validTo: must not be before validFrom/);
    });

    it('"rate periods must not overlap" names both periods', () => {
      expect(fails([rate('25', '2020-01-01', null), rate('26', '2025-01-01', null)])).toBe('rates: rate periods 0 (2020-01-01..open) and 1 (2025-01-01..open) overlap');
    });
  });
});
