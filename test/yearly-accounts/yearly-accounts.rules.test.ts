import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/shared/scalars.ts';
import { balanceSheetLines, figure, incomeStatementLines, nok, rangeSum, yearlyAccountRules } from '../../src/modules/yearly-accounts/yearly-accounts.rules.ts';

const b = (code: string, amount: string) => ({ code, amount: new Decimal(amount) });

describe('yearly accounts rules', () => {
  it.each<[string, string]>([
    ['0', '0,00'],
    ['1234567.8', '1 234 567,80'],
    ['-20000', '-20 000,00'],
    ['999.995', '1 000,00'],
  ])('nok(%s) is %s', (value, text) => expect(nok(new Decimal(value))).toBe(text));

  it('rangeSum takes accounts whose code starts in the range (1370-1379: 1370 and 13755, not 1380 or 137)', () => {
    expect(rangeSum([b('1370', '1'), b('13755', '2'), b('1380', '4'), b('137', '8')], '1370', '1379').toString()).toBe('3');
  });

  it('"88-89 are the allocation of the result, not part of it": an allocation leaves årsresultat unchanged', () => {
    const year = [b('3000', '-100'), b('6300', '40')];
    const allocated = [...year, b('8960', '60')];
    expect(figure(incomeStatementLines(year, []), 'arsresultat').amount.toString()).toBe('60');
    expect(figure(incomeStatementLines(allocated, []), 'arsresultat').amount.toString()).toBe('60');
  });

  it('the balance sheet shows equity and liabilities credit-positive', () => {
    const lines = balanceSheetLines([b('1920', '100'), b('2000', '-30'), b('2400', '-70')], []);
    expect([figure(lines, 'sum_eiendeler'), figure(lines, 'egenkapital'), figure(lines, 'sum_egenkapital_og_gjeld')].map((l) => l.amount.toString())).toEqual(['100', '30', '100']);
  });

  it('a period defaults to the calendar year and is at most 18 months', () => {
    expect(yearlyAccountRules.preview.parse({ clientAccountId: 1, reportingYear: 2024 })).toMatchObject({ fromDate: new Date('2024-01-01'), toDate: new Date('2024-12-31') });
    expect(yearlyAccountRules.preview.safeParse({ clientAccountId: 1, reportingYear: 2024, fromDate: new Date('2024-01-01'), toDate: new Date('2025-12-31') }).success).toBe(false);
  });
});
