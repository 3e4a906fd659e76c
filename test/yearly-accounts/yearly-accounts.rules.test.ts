import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/shared/scalars.ts';
import { BALANCE_SECTIONS, balanceSheetLines, figure, incomeStatementLines, inRanges, LINE_ITEMS, nok, norwegianDate, rangeSum, yearlyAccountRules } from '../../src/modules/yearly-accounts/yearly-accounts.rules.ts';

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

  it('"every account 1000–2999 is in exactly one balance-sheet line item, inside its section\'s groups" (LINE_ITEMS)', () => {
    const balanceItems = LINE_ITEMS.filter((i) => i.section !== 'disponering');
    for (let n = 1000; n <= 2999; n++) {
      const code = String(n);
      const items = balanceItems.filter((i) => inRanges(code, i.ranges));
      expect([code, items.length]).toEqual([code, 1]);
      const section = BALANCE_SECTIONS.find((s) => s.key === items[0].section)!;
      const group = Math.floor(n / 100);
      expect([code, section.groups.some(([lo, hi]) => group >= lo && group <= hi)]).toEqual([code, true]);
    }
    // 88–89: each account in at most one allocation item, and every item's range inside 88–89
    for (let n = 8800; n <= 8999; n++) expect(LINE_ITEMS.filter((i) => i.section === 'disponering' && inRanges(String(n), i.ranges)).length).toBe(1);
  });

  it('"each line item sums to its section": a ledger on every group, this year and the previous', () => {
    const ledger = [b('1050', '1'), b('1130', '2'), b('1250', '4'), b('1370', '8'), b('1460', '16'), b('1500', '32'), b('1570', '64'), b('1700', '128'), b('1810', '256'), b('1920', '512'),
      b('2000', '-1'), b('2020', '-2'), b('2030', '-4'), b('2050', '-8'), b('2080', '16'), b('2120', '-32'), b('2210', '-64'), b('2220', '-128'), b('2290', '-256'), b('2380', '-512'),
      b('2400', '-1024'), b('2500', '-2048'), b('2600', '-4096'), b('2740', '-8192'), b('2800', '-16384'), b('2990', '-32768')];
    const lines = balanceSheetLines(ledger, ledger.slice(0, 10));
    let items = new Decimal(0);
    let previous = new Decimal(0);
    for (const l of lines) {
      if (!l.isSum) {
        items = items.plus(l.amount);
        previous = previous.plus(l.previousAmount);
      } else if (BALANCE_SECTIONS.some((s) => s.key === l.key)) {
        expect([l.key, items.toString(), previous.toString()]).toEqual([l.key, l.amount.toString(), l.previousAmount.toString()]);
        items = new Decimal(0);
        previous = new Decimal(0);
      }
    }
    expect(figure(lines, 'sum_eiendeler').amount.toString()).toBe('1023');
    expect(figure(lines, 'annen_egenkapital').amount.toString()).toBe('-8'); // 2050 credit 8, 2080 udekket tap debit 16
    expect(figure(lines, 'gjeld_kredittinstitusjoner').amount.toString()).toBe('128');
    expect(figure(lines, 'annen_langsiktig_gjeld').amount.toString()).toBe('320');
    expect(figure(lines, 'annen_kortsiktig_gjeld').amount.toString()).toBe('49664'); // 2380 + 2800 + 2990
  });

  it('"the allocation sums to årsresultat": booked allocations as posted, the unallocated rest shown as transferred to annen egenkapital', () => {
    const year = [b('3000', '-1000'), b('6300', '400'), b('8920', '100'), b('8960', '200')];
    const lines = incomeStatementLines(year, [b('3000', '-50'), b('8990', '-20')]);
    expect(['arsresultat', 'avsatt_utbytte', 'overfort_udekket_tap', 'overfort_annen_egenkapital', 'sum_overforinger'].map((k) => [k, figure(lines, k).amount.toString(), figure(lines, k).previousAmount.toString()])).toEqual([
      ['arsresultat', '600', '50'],
      ['avsatt_utbytte', '100', '0'],
      ['overfort_udekket_tap', '0', '-20'],
      ['overfort_annen_egenkapital', '500', '70'],
      ['sum_overforinger', '600', '50'],
    ]);
  });

  it('a date as Norwegians write it: 31.12.2024', () => expect(norwegianDate(new Date('2024-12-31'))).toBe('31.12.2024'));
});
