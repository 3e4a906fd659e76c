import { describe, expect, it } from 'vitest';
import { effectiveRecurringInterval, recurringPeriodIsValid } from '../../src/modules/item-collections/item-collections.rules.ts';

const d = (s: string) => new Date(`${s}T00:00:00Z`);

// spec 001 "Item collection and entry"
describe('item collection entry rules', () => {
  it.each([
    [null, 1],
    [undefined, 1],
    [1, 1],
    [3, 3],
    [6, 6],
    [12, 12],
  ])('"recurring_interval … stored null when omitted and then treated as 1": %s -> %i', (stored, effective) => {
    expect(effectiveRecurringInterval(stored)).toBe(effective);
  });

  it.each([
    [null, null, true],
    ['2026-01-01', null, true],
    [null, '2026-01-01', true],
    ['2026-01-01', '2026-01-01', true],
    ['2026-01-01', '2026-12-31', true],
    ['2026-01-02', '2026-01-01', false],
  ])('recurring period %s .. %s: end not before start -> %s', (start, end, ok) => {
    expect(recurringPeriodIsValid(start ? d(start) : null, end ? d(end) : null)).toBe(ok);
  });
});
