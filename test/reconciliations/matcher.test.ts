import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchJob, enqueueMatch } from '../../src/modules/reconciliations/matcher.job.ts';
import { mod10CheckDigit, mod11CheckDigit } from '../../src/modules/reconciliations/matcher.rules.ts';
import { errorCode, eventually, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// The internal automatic matching process (spec 001 "Reconciliations": drafts come only from it) on a
// real database: what it proposes, that it moves nothing, runs twice without duplicates, stays in its
// tenant and runs through the job queue.
describe.each(targets())('reconciliation matcher (%s)', (target) => {
  let app: TestApp;

  beforeAll(async () => {
    // this file's queue only: on PostgreSQL other test files share the database
    app = await startTestApp(target, { jobs: { queues: [matchJob.name] }, log: ['query'] });
  });
  afterAll(() => app?.close());

  /** A company's books: partners, invoices (documents with numbers), a supplier invoice, its own bank account. */
  async function books(t: Tenant, on: TestApp = app) {
    const prisma = on.db.prisma;
    const clientAccountId = t.account.id;
    const partner = (name: string, accounts: string[] = []) =>
      prisma.businessPartner.create({
        data: { clientAccountId, name, isCustomer: true, isSupplier: true, bankAccounts: { create: accounts.map((accountNumber) => ({ clientAccountId, accountNumber })) } },
      });
    const lillebror = await partner('Kafé Lillebror AS');
    const fjell = await partner('Fjellkaffe ASA');
    const grossist = await partner('Bønnegrossisten AS', ['12345678903']);
    const own = await prisma.bankAccount.create({ data: { clientAccountId, accountNumber: '15032012342', name: 'Driftskonto', ledgerAccountId: await t.ledgerAccount('1920') } });

    const post = async (o: { date: string; partner: number; amount: string; doc?: string; payable?: boolean }) => {
      const document = o.doc
        ? await prisma.document.create({
            data: { clientAccountId, businessPartnerId: o.partner, documentType: o.payable ? 'APINV' : 'ARINV', documentNumber: o.doc, documentDate: new Date(o.date), isDraft: false },
          })
        : null;
      const bp = [{ type: 'BUSINESS_PARTNER', id: o.partner }];
      const lines = o.payable
        ? [
            { postingDate: o.date, accountCode: '6540', debit: o.amount, credit: '0' },
            { postingDate: o.date, accountCode: '2400', debit: '0', credit: o.amount, dimensions: bp },
          ]
        : [
            { postingDate: o.date, accountCode: '1500', debit: o.amount, credit: '0', dimensions: bp },
            { postingDate: o.date, accountCode: '3000', debit: '0', credit: o.amount },
          ];
      const res = await on.gql(t.user.token, `mutation($input: CreateJournalEntryInput!) { createJournalEntry(input: $input) { id lines { id accountCode } } }`, {
        input: { clientAccountId, lines, ...(document ? { relationType: 'document', relationId: document.id } : {}) },
      });
      expect(res.errors).toBeUndefined();
      const entry = res.data.createJournalEntry;
      return { entryId: entry.id as number, lineId: entry.lines.find((l: { accountCode: string }) => l.accountCode === (o.payable ? '2400' : '1500')).id as number };
    };

    const tx = (o: { date: string; amount: string; name?: string; account?: string; kid?: string; text?: string }) =>
      prisma.bankTransaction.create({
        data: {
          clientAccountId,
          bankAccountId: own.id,
          bookingDate: new Date(o.date),
          amount: o.amount,
          currencyCode: 'NOK',
          ...(o.amount.startsWith('-') ? { payeeName: o.name } : { payorName: o.name }),
          memo: o.text,
          details: {
            create: [
              {
                structuredReference: o.kid,
                amount: o.amount,
                currencyCode: 'NOK',
                ...(o.amount.startsWith('-') ? { receiverName: o.name, receiverAccount: o.account } : { senderName: o.name, senderAccount: o.account }),
              },
            ],
          },
        },
      });
    return { prisma, clientAccountId, lillebror, fjell, grossist, post, tx };
  }

  const RUN = `mutation($id: Int!) { runReconciliationMatcher(clientAccountId: $id) { proposed reconciliationIds } }`;

  it('proposes KID, AMOUNT and SUM drafts on realistic books, moves nothing, and a second run proposes nothing new', async () => {
    const t = await app.seed.tenant();
    const b = await books(t);
    const inv = {
      kidFull: await b.post({ date: '2026-09-01', partner: b.lillebror.id, amount: '1250.00', doc: '10001' }),
      kidPartial: await b.post({ date: '2026-09-02', partner: b.lillebror.id, amount: '5000.00', doc: '10002' }),
      byName: await b.post({ date: '2026-09-03', partner: b.fjell.id, amount: '980.00', doc: '10003' }),
      sumA: await b.post({ date: '2026-09-04', partner: b.fjell.id, amount: '300.00', doc: '10004' }),
      sumB: await b.post({ date: '2026-09-05', partner: b.fjell.id, amount: '450.50', doc: '10005' }),
      twinA: await b.post({ date: '2026-09-06', partner: b.lillebror.id, amount: '700.00', doc: '10006' }),
      twinB: await b.post({ date: '2026-09-07', partner: b.lillebror.id, amount: '700.00', doc: '10007' }),
      cancelled: await b.post({ date: '2026-09-08', partner: b.lillebror.id, amount: '555.00', doc: '10008' }),
      reconciled: await b.post({ date: '2026-09-09', partner: b.lillebror.id, amount: '450.00', doc: '10009' }),
      supplier: await b.post({ date: '2026-09-10', partner: b.grossist.id, amount: '10000.00', doc: 'INV-7781', payable: true }),
    };
    const cancel = await app.gql(t.user.token, `mutation($id: Int!) { cancelJournalEntry(id: $id, cancelled: "Y", cancellationReason: "Feil kunde") { id } }`, { id: inv.cancelled.entryId });
    expect(cancel.errors).toBeUndefined();
    await b.prisma.journalEntryLine.update({ where: { id: inv.reconciled.lineId }, data: { reconciledAmount: '450.00' } });

    const kid = (body: string) => body + mod10CheckDigit(body);
    const txs = {
      kidFull: await b.tx({ date: '2026-09-20', amount: '1250.00', name: 'Ola Nordmann', kid: kid('4200010001') }),
      kidPartial: await b.tx({ date: '2026-09-21', amount: '2000.00', name: 'KAFE LILLEBROR AS', kid: '10002' + mod11CheckDigit('10002') }),
      byName: await b.tx({ date: '2026-09-22', amount: '980.00', name: 'FJELLKAFFE ASA' }),
      sum: await b.tx({ date: '2026-09-23', amount: '750.50', name: 'Fjellkaffe', text: 'Faktura 10004 og 10005' }),
      supplier: await b.tx({ date: '2026-09-24', amount: '-10000.00', name: 'Bonnegrossisten', account: '1234.56.78903' }),
      unrelated: await b.tx({ date: '2026-09-24', amount: '123.45', name: 'Ukjent Person' }),
      twin: await b.tx({ date: '2026-09-25', amount: '700.00', name: 'Kafé Lillebror AS' }),
      toCancelled: await b.tx({ date: '2026-09-25', amount: '555.00', name: 'Kafé Lillebror AS' }),
      toReconciled: await b.tx({ date: '2026-09-25', amount: '450.00', name: 'Kafé Lillebror AS' }),
    };
    const linesBefore = await b.prisma.journalEntryLine.findMany({ where: { clientAccountId: b.clientAccountId }, select: { id: true, reconciledAmount: true }, orderBy: { id: 'asc' } });

    const res = await app.gql(t.user.token, RUN, { id: b.clientAccountId });
    expect(res.errors).toBeUndefined();
    expect(res.data.runReconciliationMatcher.proposed).toBe(5);

    const drafts = await b.prisma.reconciliation.findMany({
      where: { clientAccountId: b.clientAccountId },
      include: { entries: { orderBy: { journalEntryLineId: 'asc' } } },
      orderBy: { id: 'asc' },
    });
    expect(drafts.map((d) => d.id)).toEqual(res.data.runReconciliationMatcher.reconciliationIds);
    for (const d of drafts) expect(d).toMatchObject({ isDraft: true, sequenceNumber: null, createdById: null, deletedAt: null });
    const summary = drafts.map((d) => ({
      tx: d.bankTransactionId,
      rule: d.matchRule,
      date: d.reconciliationDate.toISOString().slice(0, 10),
      entries: d.entries.map((e) => [e.journalEntryLineId, e.debit.toFixed(2), e.credit.toFixed(2)]),
    }));
    expect(summary).toEqual([
      { tx: txs.kidFull.id, rule: 'KID', date: '2026-09-20', entries: [[inv.kidFull.lineId, '1250.00', '0.00']] },
      { tx: txs.kidPartial.id, rule: 'KID', date: '2026-09-21', entries: [[inv.kidPartial.lineId, '2000.00', '0.00']] },
      { tx: txs.byName.id, rule: 'AMOUNT', date: '2026-09-22', entries: [[inv.byName.lineId, '980.00', '0.00']] },
      { tx: txs.sum.id, rule: 'SUM', date: '2026-09-23', entries: [[inv.sumA.lineId, '300.00', '0.00'], [inv.sumB.lineId, '450.50', '0.00']] },
      { tx: txs.supplier.id, rule: 'AMOUNT', date: '2026-09-24', entries: [[inv.supplier.lineId, '0.00', '10000.00']] },
    ]);
    // ambiguous, cancelled, already reconciled and unrelated payments are left for a person
    const proposedTxs = drafts.map((d) => d.bankTransactionId);
    for (const left of [txs.unrelated, txs.twin, txs.toCancelled, txs.toReconciled]) expect(proposedTxs).not.toContain(left.id);

    // a proposal moves nothing: reconciled amounts and the transactions' booked amounts are unchanged
    const linesAfter = await b.prisma.journalEntryLine.findMany({ where: { clientAccountId: b.clientAccountId }, select: { id: true, reconciledAmount: true }, orderBy: { id: 'asc' } });
    expect(linesAfter.map((l) => [l.id, l.reconciledAmount.toFixed(2)])).toEqual(linesBefore.map((l) => [l.id, l.reconciledAmount.toFixed(2)]));
    const booked = await b.prisma.bankTransaction.findMany({ where: { clientAccountId: b.clientAccountId }, select: { externalReconciledAmount: true } });
    expect(booked.every((x) => x.externalReconciledAmount.isZero())).toBe(true);

    // the job is idempotent: a second run proposes nothing new
    const again = await app.gql(t.user.token, RUN, { id: b.clientAccountId });
    expect(again.data.runReconciliationMatcher).toEqual({ proposed: 0, reconciliationIds: [] });
    expect(await b.prisma.reconciliation.count({ where: { clientAccountId: b.clientAccountId } })).toBe(5);

    // deleting a draft (a person rejected it) lets the next run propose it again
    await b.prisma.reconciliation.delete({ where: { id: drafts[2].id } });
    const third = await app.gql(t.user.token, RUN, { id: b.clientAccountId });
    expect(third.data.runReconciliationMatcher.proposed).toBe(1);
  });

  it('a line reconciled meanwhile is no open item: its payment is not proposed', async () => {
    const t = await app.seed.tenant();
    const b = await books(t);
    const invoice = await b.post({ date: '2026-10-01', partner: b.fjell.id, amount: '640.00' });
    await b.tx({ date: '2026-10-10', amount: '640.00', name: 'Fjellkaffe' });
    await b.prisma.journalEntryLine.update({ where: { id: invoice.lineId }, data: { reconciledAmount: '640.00' } });
    expect((await app.gql(t.user.token, RUN, { id: b.clientAccountId })).data.runReconciliationMatcher.proposed).toBe(0);
  });

  it("never reads or writes another tenant's books: 403 for a foreign account, and its data is untouched", async () => {
    const [t1, t2] = [await app.seed.tenant(), await app.seed.tenant()];
    const [b1, b2] = [await books(t1), await books(t2)];
    await b1.post({ date: '2026-10-01', partner: b1.fjell.id, amount: '820.00' });
    await b2.post({ date: '2026-10-01', partner: b2.fjell.id, amount: '820.00' });
    // the foreign tenant's payment names the same partner and amount
    await b2.tx({ date: '2026-10-05', amount: '820.00', name: 'Fjellkaffe ASA' });
    const mine = await app.gql(t1.user.token, RUN, { id: b1.clientAccountId });
    expect(mine.data.runReconciliationMatcher.proposed).toBe(0);
    expect(errorCode(await app.gql(t1.user.token, RUN, { id: b2.clientAccountId }))).toBe('common.forbidden');
    expect(await b2.prisma.reconciliation.count({ where: { clientAccountId: b2.clientAccountId } })).toBe(0);
    // its own run finds its own match
    expect((await app.gql(t2.user.token, RUN, { id: b2.clientAccountId })).data.runReconciliationMatcher.proposed).toBe(1);
  });

  it('reads with a fixed number of statements however many transactions and open items there are (no N+1)', async () => {
    // an app without a job runner: on a PostgreSQL database shared by the run, this file's runner also
    // works match jobs that other files' bank transactions enqueue, and its statements would be counted
    const quiet = await startTestApp(target, { log: ['query'] });
    const statementsOfRun = async (t: Tenant) => {
      // the token's session lookup is cached per process for a few seconds: warm it so neither count has it
      await quiet.gql(t.user.token, '{ me { user { id } } }');
      quiet.statements.length = 0;
      const res = await quiet.gql(t.user.token, RUN, { id: t.account.id });
      expect(res.data.runReconciliationMatcher.proposed).toBe(0);
      return quiet.statements.filter((q) => !/pgboss/i.test(q)).length;
    };
    const [small, big] = [await quiet.seed.tenant(), await quiet.seed.tenant()];
    const bs = await books(small, quiet);
    await bs.post({ date: '2026-10-01', partner: bs.fjell.id, amount: '100.00', doc: '1' });
    await bs.tx({ date: '2026-10-02', amount: '99.00', name: 'Someone', kid: '12' });
    const bb = await books(big, quiet);
    for (let k = 0; k < 8; k++) {
      await bb.post({ date: '2026-10-01', partner: [bb.fjell.id, bb.lillebror.id, bb.grossist.id][k % 3], amount: `${100 + k}.00`, doc: `${500 + k}`, payable: k % 3 === 2 });
      await bb.tx({ date: '2026-10-02', amount: `${k % 2 ? '-' : ''}${200 + k}.00`, name: `Someone ${k}`, account: '12345678903', kid: '12' });
    }
    const few = await statementsOfRun(small);
    expect(few).toBeGreaterThanOrEqual(8); // lock, drafts (2), currency, transactions, details, bank accounts, open items (no proposals: no re-read)
    expect(await statementsOfRun(big)).toBe(few);
    await quiet.close();
  });

  it('needs the write scope, like every mutation', async () => {
    const t = await app.seed.tenant();
    const res = await app.gql(t.user.readToken, RUN, { id: t.account.id });
    expect(errorCode(res)).toBe('insufficient_scope');
  });

  it('runs through the job queue once per client account and time slot, and tolerates a second run', async () => {
    const t = await app.seed.tenant();
    const b = await books(t);
    await b.post({ date: '2026-10-01', partner: b.fjell.id, amount: '1999.90', doc: '20001' });
    const payment = await b.tx({ date: '2026-10-03', amount: '1999.90', kid: '20001' + mod10CheckDigit('20001') });
    // pg-boss aligns the slots to the epoch (floor(now / 2 s)): start early in one, so both enqueues fall in it
    while (Date.now() % 2000 > 500) await new Promise((r) => setTimeout(r, 50));
    const first = await enqueueMatch(b.prisma, b.clientAccountId, 2);
    expect(first).toEqual(expect.any(String));
    // a second import in the same slot adds no job: the waiting one covers it
    expect(await enqueueMatch(b.prisma, b.clientAccountId, 2)).toBeNull();
    const draft = await eventually(
      () => b.prisma.reconciliation.findFirst({ where: { clientAccountId: b.clientAccountId, bankTransactionId: payment.id } }).then((r) => r ?? undefined),
      'the matcher job to write a draft',
    );
    expect(draft).toMatchObject({ isDraft: true, matchRule: 'KID', sequenceNumber: null });
    const job = await eventually(async () => {
      const j = await app.jobs!.boss.getJobById(matchJob.name, first!);
      return j?.state === 'completed' ? j : undefined;
    }, 'the job to complete');
    expect(job.output).toEqual({ proposed: 1, reconciliationIds: [draft.id] });
    // delivered again (at least once): nothing new
    const second = await enqueueMatch(b.prisma, b.clientAccountId, 0);
    const rerun = await eventually(async () => {
      const j = second ? await app.jobs!.boss.getJobById(matchJob.name, second) : undefined;
      return j?.state === 'completed' ? j : undefined;
    }, 'the second job to complete');
    expect(rerun.output).toEqual({ proposed: 0, reconciliationIds: [] });
    expect(await b.prisma.reconciliation.count({ where: { clientAccountId: b.clientAccountId } })).toBe(1);
  });

  it('a job for a client account deleted meanwhile completes with nothing to do (no retries)', async () => {
    const id = await enqueueMatch(app.db.prisma, 2_000_000_000, 0);
    const job = await eventually(async () => {
      const j = await app.jobs!.boss.getJobById(matchJob.name, id!);
      return j && ['completed', 'failed'].includes(j.state) ? j : undefined;
    }, 'the job to finish');
    expect(job).toMatchObject({ state: 'completed', output: { proposed: 0, reconciliationIds: [] } });
  });
});
