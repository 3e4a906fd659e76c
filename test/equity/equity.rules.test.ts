import { describe, expect, it } from 'vitest';
import { Decimal } from '@prisma/client/runtime/client';
import { availableOn, largestRemainder, positionsOf, splitRatio, type Entry } from '../../src/modules/equity/equity.rules.ts';

// The pure arithmetic of src/modules/equity/equity.rules.ts, without a database.
describe('equity rules', () => {
  it.each([
    [100, 300, 3, 1],
    [4, 6, 3, 2],
    [300, 100, 1, 3],
    [7, 7, 1, 1],
    [1, 2_147_483_647, 2_147_483_647, 1],
  ])('split %i → %i has the ratio %i/%i (new/old reduced by their gcd)', (o, n, num, den) => {
    expect(splitRatio(o, n)).toEqual({ numerator: num, denominator: den });
  });

  it.each([
    [[1, 1, 1], ['33.34', '33.33', '33.33']],
    [[2, 1], ['66.67', '33.33']],
    [[1, 2], ['33.33', '66.67']],
    [[5], ['100.00']],
    [[1, 1, 1, 1, 1, 1, 1], ['14.29', '14.29', '14.29', '14.29', '14.28', '14.28', '14.28']],
    [[2_000_000_000, 1], ['100.00', '0.00']],
  ])('largest remainder: %j → %j (sums to 100.00)', (shares, want) => {
    const got = largestRemainder(shares, shares.reduce((s, x) => s + x, 0));
    expect(got).toEqual(want);
    expect(got.reduce((s, p) => s + Math.round(Number(p) * 100), 0)).toBe(10000);
  });

  const d = (s: string) => new Date(`${s}T00:00:00Z`);
  let id = 0;
  const e = (date: string, group: string, quantity: number, price: string | null = null, partner = 1): Entry => ({
    id: ++id,
    transactionDate: d(date),
    transactionGroupId: group,
    businessPartnerId: partner,
    shareClass: 'COMMON',
    quantity,
    pricePerShare: price === null ? null : new Decimal(price),
  });

  it('availableOn: the least holding from the date on (a later disposal counts against an earlier date)', () => {
    const entries = [e('2026-01-01', 'a', 10), e('2026-03-01', 'b', -8), e('2026-04-01', 'c', 5)];
    expect(availableOn(entries, d('2025-12-31'))).toBe(0);
    expect(availableOn(entries, d('2026-01-01'))).toBe(2);
    expect(availableOn(entries, d('2026-03-01'))).toBe(2);
    expect(availableOn(entries, d('2026-04-01'))).toBe(7);
    expect(availableOn([], d('2026-04-01'))).toBe(0);
  });

  it('positionsOf: weighted average, a priceless transfer carries the sender’s cost, entries of one operation take effect disposal first', () => {
    const entries = [
      e('2026-01-01', 'i1', 3, '1', 1), // 3 for 3.00
      e('2026-01-02', 'i2', 1, '2', 1), // 4 for 5.00
      // written recipient first: still the sender's disposal takes effect first
      e('2026-01-03', 't', 1, null, 2),
      e('2026-01-03', 't', -1, null, 1), // 5 × 1/4 = 1.25
    ];
    [entries[2].id, entries[3].id] = [100, 101];
    expect(positionsOf(entries).map((p) => [p.businessPartnerId, p.quantity, p.costBasis.toFixed(2)])).toEqual([
      [1, 3, '3.75'],
      [2, 1, '1.25'],
    ]);
  });
});
