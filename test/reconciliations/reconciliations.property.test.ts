import fc from 'fast-check';
import { Decimal } from '@prisma/client/runtime/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { inTransaction, type RequestContext } from '../../src/shared/context.ts';
import { AppError } from '../../src/shared/errors.ts';
import { createJournalEntry } from '../../src/modules/journal-entries/journal-entries.service.ts';
import {
  commitReconciliation,
  createReconciliation,
  deleteReconciliation,
  reconcileInTx,
} from '../../src/modules/reconciliations/reconciliations.service.ts';

/**
 * Reconciliation invariants under random sequences of reconcile, propose (a draft, as the matcher
 * writes them), commit and delete operations on a handful of open items in NOK and EUR:
 *
 *   - a line's reconciled amounts (both currencies) are exactly the sums of the entries of the
 *     committed, not deleted reconciliations on it, and never exceed the line's own amounts;
 *   - every committed reconciliation's entries net to zero in the accounting currency (the
 *     automatic exchange entry included);
 *   - a refused operation (an AppError) changes no line; deleting releases exactly what was taken.
 *
 * Services are called directly for speed. RECON_PROPERTY_SEED / _RUNS / _OPS change the run.
 */
const SEED = Number(process.env.RECON_PROPERTY_SEED ?? 20_261_125);
const RUNS = Number(process.env.RECON_PROPERTY_RUNS ?? 8);
const OPS = Number(process.env.RECON_PROPERTY_OPS ?? 40);

type Op =
  | { kind: 'reconcile'; debit: number; credit: number; share: number; fc: boolean; wild: number }
  | { kind: 'propose'; debit: number; credit: number; share: number }
  | { kind: 'commit'; pick: number }
  | { kind: 'delete'; pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('reconcile' as const), debit: fc.nat(5), credit: fc.nat(5), share: fc.double({ min: 0.05, max: 1.2, noNaN: true }), fc: fc.boolean(), wild: fc.integer({ min: -300, max: 300 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('propose' as const), debit: fc.nat(5), credit: fc.nat(5), share: fc.double({ min: 0.05, max: 1, noNaN: true }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('commit' as const), pick: fc.nat(50) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat(50) }) },
);

describe.each(targets())('reconciliation properties (%s)', (target) => {
  let app: TestApp;
  /** what succeeded over all runs: the property must have exercised every operation, not only refusals */
  const done = { reconcile: 0, propose: 0, commit: 0, delete: 0, exchange: 0, refused: 0 };
  beforeAll(async () => {
    app = await startTestApp(target);
  });
  afterAll(() => app?.close());

  async function run(ops: Op[]) {
    const prisma = app.seed.prisma;
    const t = await app.seed.tenant();
    const clientAccountId = t.account.id;
    const ctx: RequestContext = app.seed.contextOf(t.user);
    const partner = (await prisma.businessPartner.create({ data: { clientAccountId, name: 'Kunde AS', isCustomer: true } })).id;
    const dims = [{ type: 'businesspartner', id: partner }];
    const day = new Date('2026-03-01T00:00:00Z');
    /** six receivables (debit) and six payments (credit): NOK ones, then EUR ones at varied rates */
    const post = async (side: 'debit' | 'credit', nok: string, eur?: string) => {
      const open = { postingDate: day, accountCode: '1500', debit: new Decimal(side === 'debit' ? nok : 0), credit: new Decimal(side === 'credit' ? nok : 0), dimensions: dims, ...(eur ? { currencyCode: 'EUR', [`${side}Fc`]: new Decimal(eur) } : {}) };
      const counter = { postingDate: day, accountCode: side === 'debit' ? '3000' : '1920', debit: new Decimal(side === 'credit' ? nok : 0), credit: new Decimal(side === 'debit' ? nok : 0) };
      const e = await createJournalEntry(ctx, { input: { clientAccountId, lines: [open, counter] } }, { include: { lines: true } });
      return (e as unknown as { lines: { id: number; lineId: number }[] }).lines.find((l) => l.lineId === 1)!.id;
    };
    const debits = [await post('debit', '1000.00'), await post('debit', '333.33'), await post('debit', '250.50'), await post('debit', '1137.50', '100.00'), await post('debit', '2301.17', '203.33'), await post('debit', '57.08', '5.01')];
    const credits = [await post('credit', '800.00'), await post('credit', '483.83'), await post('credit', '1000.00'), await post('credit', '1190.00', '100.00'), await post('credit', '2250.00', '200.00'), await post('credit', '99.99', '8.80')];
    const all = [...debits, ...credits];
    const reconciliations: number[] = [];

    const snapshot = async () =>
      JSON.stringify(
        (await prisma.journalEntryLine.findMany({ where: { clientAccountId }, orderBy: { id: 'asc' }, select: { id: true, reconciledAmount: true, reconciledAmountFc: true } })).map((l) => [
          l.id,
          l.reconciledAmount.toFixed(2),
          l.reconciledAmountFc.toFixed(3),
        ]),
      );
    const attempt = async (what: string, fn: () => Promise<unknown>) => {
      const before = await snapshot();
      try {
        return await fn();
      } catch (e) {
        if (!(e instanceof AppError) || e.status >= 500) throw new Error(`${what}: unexpected ${String(e)}`);
        done.refused++;
        // 409 on a stale draft deletes the draft, nothing else; every other refusal changes nothing
        expect(await snapshot(), `${what} was refused (${e.message}) but changed the lines`).toBe(before);
        return undefined;
      }
    };
    /** Entries for a debit and a credit line: `share` of what is open on both, in the lines' own currency. */
    const pair = async (debitId: number, creditId: number, share: number, inFc: boolean) => {
      const [d, c] = await Promise.all([debitId, creditId].map((id) => prisma.journalEntryLine.findUniqueOrThrow({ where: { id } })));
      const openD = inFc ? d.debitFc.minus(d.reconciledAmountFc) : d.debit.minus(d.reconciledAmount);
      const openC = inFc ? c.creditFc.minus(c.reconciledAmountFc) : c.credit.minus(c.reconciledAmount);
      const x = Decimal.min(openD, openC).times(share).toDecimalPlaces(2, Decimal.ROUND_DOWN);
      return inFc
        ? [{ journalEntryLineId: d.id, debitFc: x }, { journalEntryLineId: c.id, creditFc: x }]
        : [{ journalEntryLineId: d.id, debit: x }, { journalEntryLineId: c.id, credit: x }];
    };

    for (const [i, op] of ops.entries()) {
      const where = `op ${i} ${JSON.stringify(op)}`;
      if (op.kind === 'reconcile' || op.kind === 'propose') {
        // NOK with NOK, EUR with EUR (index ≥ 3), or a wild mix
        const fx = op.kind === 'reconcile' && op.fc;
        const d = debits[(op.debit % 3) + (fx ? 3 : 0)];
        const c = credits[(op.credit % 3) + (fx ? 3 : 0)];
        const entryLines = await pair(d, c, op.share, fx);
        if (op.kind === 'reconcile' && op.wild !== 0 && op.wild % 7 === 0) {
          // a deliberately off amount: the rules decide
          const e = entryLines[0] as { debit?: Decimal; debitFc?: Decimal };
          if (e.debit) e.debit = e.debit.plus(new Decimal(op.wild).dividedBy(100)).abs();
        }
        const id = await attempt(where, () =>
          op.kind === 'propose'
            ? inTransaction(ctx, (tx) => reconcileInTx(tx, { clientAccountId, date: day, entryLines }, { isDraft: true, matchRule: 'AMOUNT' }))
            : createReconciliation(ctx, { input: { clientAccountId, date: day, entryLines } }).then((r) => r.id),
        );
        if (typeof id === 'number') {
          reconciliations.push(id);
          done[op.kind]++;
        }
      } else if (reconciliations.length) {
        const id = reconciliations[op.pick % reconciliations.length];
        const ok = op.kind === 'commit' ? await attempt(where, () => commitReconciliation(ctx, { id, isDraft: false })) : await attempt(where, () => deleteReconciliation(ctx, { id }));
        if (ok !== undefined) done[op.kind]++;
      }
    }

    // the invariants
    const lines = await prisma.journalEntryLine.findMany({ where: { clientAccountId }, include: { reconciliationEntries: { include: { reconciliation: true } } } });
    for (const l of lines) {
      const live = l.reconciliationEntries.filter((e) => !e.reconciliation.isDraft && !e.reconciliation.deletedAt);
      const sum = live.reduce((s, e) => s.plus(e.debit).plus(e.credit), new Decimal(0));
      const sumFc = live.reduce((s, e) => s.plus(e.debitFc).plus(e.creditFc), new Decimal(0));
      expect(l.reconciledAmount.toFixed(2), `line ${l.id}`).toBe(sum.toFixed(2));
      expect(l.reconciledAmountFc.toFixed(3), `line ${l.id}`).toBe(sumFc.toFixed(3));
      expect(l.reconciledAmount.lessThanOrEqualTo(l.debit.plus(l.credit)), `line ${l.id} over-reconciled`).toBe(true);
      expect(l.reconciledAmountFc.lessThanOrEqualTo(l.debitFc.plus(l.creditFc)), `line ${l.id} over-reconciled in its currency`).toBe(true);
    }
    const committed = await prisma.reconciliation.findMany({ where: { clientAccountId, isDraft: false, deletedAt: null }, include: { entries: true } });
    for (const r of committed) {
      const net = r.entries.reduce((s, e) => s.plus(e.debit).minus(e.credit), new Decimal(0));
      expect(net.toFixed(2), `reconciliation ${r.id} nets to zero locally`).toBe('0.00');
    }
    done.exchange += committed.filter((r) => r.exchangeEntryId !== null).length;
    const numbers = committed.map((r) => r.sequenceNumber!).sort((a, b) => a - b);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(all.length).toBe(12);
  }

  it('reconciled amounts never exceed line amounts, releases restore them exactly, every committed reconciliation nets to zero', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: OPS, maxLength: OPS }), (ops) => run(ops)),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    for (const [kind, n] of Object.entries(done)) expect(n, `${kind} happened in no run: ${JSON.stringify(done)}`).toBeGreaterThan(0);
  }, 600_000);
});
