import { describe, expect, it } from 'vitest';
import { agreedHash, canonicalJson, dataHash, patchProblem, submissionProblem, MAX_RESULTS_PER_TASK } from '../../src/modules/worker-tasks/worker-tasks.rules.ts';
import { addDays, dayBefore, isoWeek, weekOf } from '../../src/modules/notification-settings/summaries.rules.ts';

describe('worker task rules', () => {
  it('canonical JSON sorts keys at every depth, so equal data hash the same', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: null }], c: 'x' } })).toBe('{"a":{"c":"x","d":[2,{"x":null,"y":1}]},"b":1}');
    expect(dataHash({ a: 1, b: 2 })).toBe(dataHash({ b: 2, a: 1 }));
    expect(dataHash({ a: 1 })).not.toBe(dataHash({ a: '1' }));
  });

  it.each<[string, { id: number; submittedById: number | null; dataHash: string }[], number, string | null]>([
    ['two users agree', [{ id: 1, submittedById: 1, dataHash: 'x' }, { id: 2, submittedById: 2, dataHash: 'x' }], 2, 'x'],
    ['one user twice is one vote', [{ id: 1, submittedById: 1, dataHash: 'x' }, { id: 2, submittedById: 1, dataHash: 'x' }], 2, null],
    ['a user’s latest answer counts, the earlier one not', [{ id: 1, submittedById: 1, dataHash: 'x' }, { id: 2, submittedById: 2, dataHash: 'x' }, { id: 3, submittedById: 1, dataHash: 'y' }], 2, null],
    ['order of ids decides which is latest, not the order given', [{ id: 3, submittedById: 1, dataHash: 'y' }, { id: 1, submittedById: 1, dataHash: 'x' }, { id: 2, submittedById: 2, dataHash: 'y' }], 2, 'y'],
    ['results without a submitter count each on their own', [{ id: 1, submittedById: null, dataHash: 'x' }, { id: 2, submittedById: null, dataHash: 'x' }], 2, 'x'],
    ['one result suffices where one is required', [{ id: 1, submittedById: 7, dataHash: 'z' }], 1, 'z'],
    ['three required, two given', [{ id: 1, submittedById: 1, dataHash: 'x' }, { id: 2, submittedById: 2, dataHash: 'x' }], 3, null],
  ])('consensus: %s', (_name, results, required, expected) => {
    expect(agreedHash(results, required)).toBe(expected);
  });

  it.each<['PENDING' | 'COMPLETED' | 'CANCELLED', 'PENDING' | 'COMPLETED' | 'CANCELLED', boolean]>([
    ['PENDING', 'CANCELLED', true],
    ['PENDING', 'PENDING', false],
    ['PENDING', 'COMPLETED', false],
    ['COMPLETED', 'CANCELLED', false],
    ['CANCELLED', 'CANCELLED', false],
  ])('PATCH %s → %s allowed: %s', (from, to, allowed) => {
    expect(patchProblem(from, to) === null).toBe(allowed);
  });

  it('results only while PENDING, and at most the cap per task', () => {
    expect(submissionProblem('PENDING', 0)).toBeNull();
    expect(submissionProblem('COMPLETED', 0)).toMatch(/COMPLETED/);
    expect(submissionProblem('CANCELLED', 0)).toMatch(/CANCELLED/);
    expect(submissionProblem('PENDING', MAX_RESULTS_PER_TASK)).toMatch(/the most a task takes/);
  });
});

describe('summary periods (Europe/Oslo)', () => {
  it.each<[string, string]>([
    ['2026-11-30T05:00:00Z', '2026-11-30'], // Monday morning
    ['2026-12-06T22:59:00Z', '2026-11-30'], // Sunday 23:59 in Norway
    ['2026-12-06T23:00:00Z', '2026-12-07'], // Monday 00:00 in Norway (CET)
    ['2026-03-29T21:59:00Z', '2026-03-23'], // Sunday 23:59 CEST, the day clocks went forward
    ['2026-03-29T22:00:00Z', '2026-03-30'],
  ])('weekOf(%s) is the Monday %s', (now, monday) => {
    expect(weekOf(new Date(now))).toBe(monday);
  });

  it('dayBefore is yesterday in Norway; ISO weeks as Norwegian calendars number them', () => {
    expect(dayBefore(new Date('2026-11-27T23:30:00Z'))).toBe('2026-11-27'); // 00:30 on the 28th in Norway
    expect(dayBefore(new Date('2026-11-27T22:30:00Z'))).toBe('2026-11-26');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect([isoWeek('2026-11-30'), isoWeek('2020-12-28'), isoWeek('2021-01-04'), isoWeek('2027-01-01'), isoWeek('2024-12-30')]).toEqual([49, 53, 1, 53, 1]);
  });
});
