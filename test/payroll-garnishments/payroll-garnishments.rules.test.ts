import { describe, expect, it } from 'vitest';
import { planFetch, statusOf, type StoredGarnishment } from '../../src/modules/payroll-garnishments/payroll-garnishments.rules.ts';
import type { GarnishmentOrder } from '../../src/integrations/taxauthority/garnishments.ts';
import { derivedOrder, ordersFor } from '../../src/integrations/taxauthority/garnishments.sandbox.ts';
import { randomNationalId } from './fixtures.ts';
import { randomOrganizationNumber } from '../support/seed.ts';

const TODAY = new Date('2026-11-26T00:00:00.000Z');
const PERSON = '01019912345';

const order = (id: string, version: number, extra: Partial<GarnishmentOrder> = {}): GarnishmentOrder => ({
  order_id: id,
  version,
  sequence_number: 1,
  person_number: PERSON,
  garnishment_type: 'UTLEGGSTREKK',
  deduction_type: 'FIXED',
  amount: '1000.00',
  percentage: null,
  priority: 2,
  creditor: null,
  payment_reference: null,
  case_number: null,
  valid_from: '2026-01-01',
  valid_to: null,
  ...extra,
});
const stored = (id: number, externalId: string, externalVersion: number, status: StoredGarnishment['status'] = 'ACTIVE'): StoredGarnishment => ({ id, externalId, externalVersion, status });
const employees = new Map([[PERSON, 7]]);

describe('the fetch plan (what one answer of the tax authority changes)', () => {
  it.each([
    ['no valid_to', null, 'ACTIVE'],
    ['valid_to today', '2026-11-26', 'ACTIVE'],
    ['valid_to in the future', '2027-01-31', 'ACTIVE'],
    ['valid_to yesterday: passed', '2026-11-25', 'EXPIRED'],
  ] as const)('status of an order: %s → %s', (_what, validTo, status) => {
    expect(statusOf({ valid_to: validTo }, TODAY)).toBe(status);
  });

  it('an order not stored is created for the employee with its national id number; one for an unknown person is skipped and counted', () => {
    const plan = planFetch([], [order('A', 1), order('B', 1, { person_number: '02029912345' })], employees, TODAY);
    expect(plan.create).toEqual([{ order: order('A', 1), businessPartnerId: 7, status: 'ACTIVE' }]);
    expect(plan).toMatchObject({ update: [], cancel: [], expire: [], unchanged: 0, skipped: 1, listed: 2 });
  });

  it.each([
    ['a newer version wins', 3, 2, 'update'],
    ['the same version changes nothing', 2, 2, 'unchanged'],
    ['an older version changes nothing', 1, 2, 'unchanged'],
  ] as const)('%s (listed version %i, stored %i)', (_what, listed, storedVersion, outcome) => {
    const plan = planFetch([stored(1, 'A', storedVersion)], [order('A', listed, { amount: '2000.00' })], employees, TODAY);
    if (outcome === 'update') expect(plan.update).toEqual([{ id: 1, order: order('A', listed, { amount: '2000.00' }), businessPartnerId: 7, status: 'ACTIVE' }]);
    else expect(plan).toMatchObject({ update: [], unchanged: 1 });
  });

  it('an ACTIVE order the authority no longer lists is CANCELLED; EXPIRED and CANCELLED ones stay as they are', () => {
    const plan = planFetch([stored(1, 'A', 1), stored(2, 'B', 1, 'EXPIRED'), stored(3, 'C', 1, 'CANCELLED')], [], employees, TODAY);
    expect(plan.cancel).toEqual([1]);
  });

  it('a CANCELLED order listed again is updated whatever its version', () => {
    const plan = planFetch([stored(1, 'A', 4, 'CANCELLED')], [order('A', 4)], employees, TODAY);
    expect(plan.update.map((u) => [u.id, u.status])).toEqual([[1, 'ACTIVE']]);
  });

  it('a stored ACTIVE order of the same version whose valid_to has passed becomes EXPIRED; a new one is created EXPIRED', () => {
    const plan = planFetch([stored(1, 'A', 1)], [order('A', 1, { valid_to: '2026-06-30' }), order('B', 1, { valid_to: '2025-12-31' })], employees, TODAY);
    expect(plan.expire).toEqual([1]);
    expect(plan.create.map((c) => [c.order.order_id, c.status])).toEqual([['B', 'EXPIRED']]);
  });

  it('the same order twice in one answer: the higher version counts', () => {
    const plan = planFetch([], [order('A', 1), order('A', 3, { amount: '3.00' }), order('A', 2)], employees, TODAY);
    expect(plan.create.map((c) => [c.order.version, c.order.amount])).toEqual([[3, '3.00']]);
  });
});

describe('the sandbox’s derived orders', () => {
  it('are deterministic: the same employer and person always get the same answer, and about 1 in 10 persons each a FIXED or a PERCENTAGE order', () => {
    // an employer of this test's own: the sandbox keeps what other files did to theirs (the demo
    // company's orders, lifted or changed) for the life of the worker, whose modules files share
    const org = randomOrganizationNumber();
    // distinct persons: 2,000 random numbers repeat one about once in 15 runs
    const persons = [...new Set(Array.from({ length: 2000 }, randomNationalId))];
    const kinds = { FIXED: 0, PERCENTAGE: 0, NONE: 0 };
    for (const p of persons) {
      const o = derivedOrder(org, p);
      expect(derivedOrder(org, p)).toEqual(o);
      kinds[o?.deduction_type ?? 'NONE']++;
      if (o?.deduction_type === 'FIXED') expect(o).toMatchObject({ garnishment_type: 'UTLEGGSTREKK', priority: 2, percentage: null, amount: expect.stringMatching(/^\d{1,2}00\.00$/) });
      if (o?.deduction_type === 'PERCENTAGE') expect(o).toMatchObject({ garnishment_type: 'BIDRAGSTREKK', priority: 1, amount: null, percentage: expect.stringMatching(/^\d{1,2}\.(00|50)$/) });
    }
    expect(kinds.FIXED / persons.length).toBeGreaterThan(0.07);
    expect(kinds.FIXED / persons.length).toBeLessThan(0.13);
    expect(kinds.PERCENTAGE / persons.length).toBeGreaterThan(0.07);
    expect(kinds.PERCENTAGE / persons.length).toBeLessThan(0.13);
    // the employer gets orders only for the persons it names
    expect(ordersFor(org, persons).length).toBe(kinds.FIXED + kinds.PERCENTAGE);
    expect(ordersFor(org, [])).toEqual([]);
  });
});
