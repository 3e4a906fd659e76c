import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// spec 001, "Reconciliation" and "Reconciliations": GET/POST /reconciliations, PATCH/DELETE
// /reconciliations/{id}; the reconciliation rows of "States and transitions"; the balancing rules.
describe.each(targets())('reconciliations REST (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let customer: number;
  let otherCustomer: number;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
    customer = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kunde AS', isCustomer: true } })).id;
    otherCustomer = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: other.account.id, name: 'Annen Kunde AS', isCustomer: true } })).id;
  });
  afterAll(() => app?.close());

  const partner = () => [{ type: 'businesspartner', id: customer }];
  /** Posts an entry and answers its lines by account code (the first line of each code). */
  async function entry(lines: Record<string, unknown>[], tenant = t) {
    const res = await app.http('POST', '/api/v2/journal-entries/', { token: tenant.user.token, body: { client_account_id: tenant.account.id, lines } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: number; lines: { id: number; account_code: string; journal_entry_id: number }[] };
  }
  /** An invoice: 1500 debit (the open receivable) against 3000. */
  async function invoice(amount: string, extra: Record<string, unknown> = {}) {
    const e = await entry([
      { posting_date: '2026-03-01', account_code: '1500', debit: amount, credit: 0, dimensions: partner(), ...extra },
      { posting_date: '2026-03-01', account_code: '3000', debit: 0, credit: amount },
    ]);
    return e.lines[0];
  }
  /** A payment: 1920 debit against 1500 credit (the payment's open item). */
  async function payment(amount: string, extra: Record<string, unknown> = {}) {
    const e = await entry([
      { posting_date: '2026-03-20', account_code: '1920', debit: amount, credit: 0 },
      { posting_date: '2026-03-20', account_code: '1500', debit: 0, credit: amount, dimensions: partner(), ...extra },
    ]);
    return e.lines[1];
  }
  const post = (body: unknown, token = t.user.token) => app.http('POST', '/api/v2/reconciliations', { token, body });
  const patch = (id: number, body: unknown, token = t.user.token) => app.http('PATCH', `/api/v2/reconciliations/${id}`, { token, body });
  const del = (id: number, token = t.user.token) => app.http('DELETE', `/api/v2/reconciliations/${id}`, { token });
  const list = (qs: string, token = t.user.token) => app.http('GET', `/api/v2/reconciliations?client_account_id=${t.account.id}&${qs}`, { token });
  const line = async (id: number) => app.seed.prisma.journalEntryLine.findUniqueOrThrow({ where: { id } });
  const reconcile = async (entryLines: unknown[], date = '2026-03-31') => {
    const res = await post({ client_account_id: t.account.id, date, entry_lines: entryLines });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  /** A draft as the automatic matching process writes it (it is the only source of drafts). */
  async function draft(entries: { line: { id: number; journal_entry_id: number }; debit?: string; credit?: string }[]) {
    const r = await app.seed.prisma.reconciliation.create({
      data: {
        clientAccountId: t.account.id,
        reconciliationDate: new Date('2026-03-31'),
        isDraft: true,
        matchRule: 'AMOUNT',
        entries: {
          create: entries.map((e) => ({
            journalEntryLineId: e.line.id,
            journalEntryId: e.line.journal_entry_id,
            debit: e.debit ?? '0',
            credit: e.credit ?? '0',
            debitFc: e.debit ?? '0',
            creditFc: e.credit ?? '0',
          })),
        },
      },
    });
    return r.id;
  }

  describe('POST /reconciliations', () => {
    it('"201 with the reconciliation including entries": every field, a sequence number, is_draft false; the lines’ reconciled amounts move', async () => {
      const inv = await invoice('1250.00');
      const pay = await payment('1250.00');
      const res = await post({ client_account_id: t.account.id, date: '2026-03-31', entry_lines: [{ journal_entry_line_id: inv.id }, { journal_entry_line_id: pay.id }] });
      expect(res.status).toBe(201);
      const r = res.body;
      expect(Object.keys(r).sort()).toEqual(
        ['id', 'created_at', 'created_by_id', 'client_account_id', 'sequence_number', 'reconciliation_date', 'is_draft', 'is_deleted', 'deleted_at', 'deleted_by_id', 'exchange_entry_id', 'entries'].sort(),
      );
      expect(r).toMatchObject({ client_account_id: t.account.id, reconciliation_date: '2026-03-31', is_draft: false, is_deleted: false, deleted_at: null, deleted_by_id: null, created_by_id: t.user.id, exchange_entry_id: null });
      expect(r.sequence_number).toBeGreaterThan(0);
      expect(r.entries).toHaveLength(2);
      expect(Object.keys(r.entries[0]).sort()).toEqual(['id', 'journal_entry_id', 'journal_entry_line_id', 'debit', 'debit_fc', 'credit', 'credit_fc'].sort());
      // "when all omitted they default to the line's debit or credit"; journal_entry_id defaults to the line's entry
      expect(r.entries).toEqual([
        expect.objectContaining({ journal_entry_line_id: inv.id, journal_entry_id: inv.journal_entry_id, debit: '1250.00', credit: '0.00', debit_fc: '1250.00', credit_fc: '0.00' }),
        expect.objectContaining({ journal_entry_line_id: pay.id, journal_entry_id: pay.journal_entry_id, debit: '0.00', credit: '1250.00', debit_fc: '0.00', credit_fc: '1250.00' }),
      ]);
      expect((await line(inv.id)).reconciledAmount.toFixed(2)).toBe('1250.00');
      expect((await line(pay.id)).reconciledAmountFc.toFixed(2)).toBe('1250.00');
      const je = await app.http('GET', `/api/v2/journal-entries/${inv.journal_entry_id}`, { token: t.user.token });
      expect(je.body.lines[0]).toMatchObject({ reconciled_amount: '1250.00', reconciled_amount_fc: '1250.00' });
    });

    it('"sequence_number assigned": 1, 2, 3 … per client account in commit order', async () => {
      const a = await reconcile([{ journal_entry_line_id: (await invoice('10.00')).id }, { journal_entry_line_id: (await payment('10.00')).id }]);
      const b = await reconcile([{ journal_entry_line_id: (await invoice('10.00')).id }, { journal_entry_line_id: (await payment('10.00')).id }]);
      expect(b.sequence_number).toBe(a.sequence_number + 1);
    });

    it('a partial reconciliation: one payment settles part of an invoice, a second the rest', async () => {
      const inv = await invoice('1000.00');
      const p1 = await payment('400.00');
      const p2 = await payment('600.00');
      await reconcile([{ journal_entry_line_id: inv.id, debit: '400.00' }, { journal_entry_line_id: p1.id }]);
      expect((await line(inv.id)).reconciledAmount.toFixed(2)).toBe('400.00');
      await reconcile([{ journal_entry_line_id: inv.id, debit: '600.00' }, { journal_entry_line_id: p2.id }]);
      expect((await line(inv.id)).reconciledAmount.toFixed(2)).toBe('1000.00');
    });

    it.each([
      ['missing body', undefined, /client_account_id: is required/],
      ['fewer than two entries', 'one', /entry_lines: a reconciliation needs at least two entry lines/],
      ['duplicate journal_entry_line_id', 'duplicate', /entry_lines\.1\.journal_entry_line_id: journal entry line \d+ is already entry line 0/],
      ['entry missing amounts', 'zero', /entry_lines\.0\.debit: entry has no amount/],
      ['entries do not balance', 'unbalanced', /entries do not balance in NOK: debit 500\.00, credit 300\.00, difference 200\.00/],
      ['entry exceeds the line’s remaining unreconciled amount', 'exceeds', /exceeds the remaining unreconciled amount of journal entry line \d+ \(500\.00 of 500\.00\)/],
      ['is_draft cannot be set', 'draft', /is_draft: cannot be set/],
      ['the other side of the line', 'side', /is a debit line: it is reconciled with debit/],
      ['date missing', 'nodate', /date: is required/],
    ])('Create 400 (%s)', async (_rule, kind, message) => {
      const inv = await invoice('500.00');
      const pay = await payment('300.00');
      const body: Record<string, unknown> | undefined =
        kind === undefined
          ? undefined
          : {
              client_account_id: t.account.id,
              date: '2026-03-31',
              entry_lines: {
                one: [{ journal_entry_line_id: inv.id }],
                duplicate: [{ journal_entry_line_id: inv.id, debit: '300.00' }, { journal_entry_line_id: inv.id }, { journal_entry_line_id: pay.id }],
                zero: [{ journal_entry_line_id: inv.id, debit: '0' }, { journal_entry_line_id: pay.id }],
                unbalanced: [{ journal_entry_line_id: inv.id }, { journal_entry_line_id: pay.id }],
                exceeds: [{ journal_entry_line_id: inv.id, debit: '600.00' }, { journal_entry_line_id: pay.id, credit: '300.00' }],
                draft: [{ journal_entry_line_id: inv.id, debit: '300.00' }, { journal_entry_line_id: pay.id }],
                side: [{ journal_entry_line_id: inv.id, credit: '300.00' }, { journal_entry_line_id: pay.id }],
                nodate: [{ journal_entry_line_id: inv.id, debit: '300.00' }, { journal_entry_line_id: pay.id }],
              }[kind],
              ...(kind === 'draft' ? { is_draft: true } : {}),
            };
      if (kind === 'nodate') delete body!.date;
      const res = await post(body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(message), status: 400 });
      // nothing was written: the lines are as open as before
      expect((await line(inv.id)).reconciledAmount.toFixed(2)).toBe('0.00');
      expect((await line(pay.id)).reconciledAmount.toFixed(2)).toBe('0.00');
    });

    it('Create 400 when the line is exhausted by an earlier reconciliation ("exceeds the line’s remaining unreconciled amount")', async () => {
      const inv = await invoice('200.00');
      await reconcile([{ journal_entry_line_id: inv.id }, { journal_entry_line_id: (await payment('200.00')).id }]);
      const res = await post({ client_account_id: t.account.id, date: '2026-03-31', entry_lines: [{ journal_entry_line_id: inv.id }, { journal_entry_line_id: (await payment('200.00')).id }] });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/200\.00 exceeds the remaining unreconciled amount of journal entry line \d+ \(0\.00 of 200\.00\)/);
    });

    it('a cancelled line cannot be reconciled (nor its reversal), nor a draft’s line (400)', async () => {
      const inv = await invoice('75.00');
      const cancelled = await app.http('PATCH', `/api/v2/journal-entries/${inv.journal_entry_id}`, { token: t.user.token, body: { cancelled: 'Y', cancellation_reason: 'wrong customer' } });
      expect(cancelled.status).toBe(200);
      const res = await post({ client_account_id: t.account.id, date: '2026-03-31', entry_lines: [{ journal_entry_line_id: inv.id }, { journal_entry_line_id: (await payment('75.00')).id }] });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/a cancelled line cannot be reconciled/);
      const reversal = await app.seed.prisma.journalEntryLine.findFirstOrThrow({ where: { journalEntryId: cancelled.body.cancellation_entry_id, lineId: 1 } });
      const res2 = await post({ client_account_id: t.account.id, date: '2026-03-31', entry_lines: [{ journal_entry_line_id: reversal.id }, { journal_entry_line_id: (await invoice('75.00')).id }] });
      expect(res2.status).toBe(400);
      expect(res2.body.error).toMatch(/the cancellation of another entry/);
      const draftEntry = await app.http('POST', '/api/v2/journal-entries/', {
        token: t.user.token,
        body: { client_account_id: t.account.id, is_draft: true, lines: [{ posting_date: '2026-03-01', account_code: '1500', debit: 75, credit: 0, dimensions: partner() }, { posting_date: '2026-03-01', account_code: '3000', debit: 0, credit: 75 }] },
      });
      const res3 = await post({ client_account_id: t.account.id, date: '2026-03-31', entry_lines: [{ journal_entry_line_id: draftEntry.body.lines[0].id }, { journal_entry_line_id: (await payment('75.00')).id }] });
      expect(res3.status).toBe(400);
      expect(res3.body.error).toMatch(/only posted lines can be reconciled/);
    });

    it('a journal entry with reconciled lines cannot be cancelled (400) until its reconciliations are deleted', async () => {
      const inv = await invoice('88.00');
      const r = await reconcile([{ journal_entry_line_id: inv.id }, { journal_entry_line_id: (await payment('88.00')).id }]);
      const cancel = () => app.http('PATCH', `/api/v2/journal-entries/${inv.journal_entry_id}`, { token: t.user.token, body: { cancelled: 'Y', cancellation_reason: 'wrong' } });
      const refused = await cancel();
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatch(/has reconciled lines \(line_id 1\): delete their reconciliations first/);
      expect((await del(r.id)).status).toBe(204);
      expect((await cancel()).status).toBe(200);
    });

    it('journal_entry_id must be the line’s entry when given; a line of another client account is unknown here (400)', async () => {
      const inv = await invoice('20.00');
      const pay = await payment('20.00');
      const res = await post({ client_account_id: t.account.id, date: '2026-03-31', entry_lines: [{ journal_entry_line_id: inv.id, journal_entry_id: pay.journal_entry_id }, { journal_entry_line_id: pay.id }] });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/entry_lines\.0\.journal_entry_id: journal entry line \d+ belongs to journal entry \d+, not \d+/);
      const foreign = await entry(
        [
          { posting_date: '2026-03-01', account_code: '1500', debit: 20, credit: 0, dimensions: [{ type: 'businesspartner', id: otherCustomer }] },
          { posting_date: '2026-03-01', account_code: '3000', debit: 0, credit: 20 },
        ],
        other,
      );
      const res2 = await post({ client_account_id: t.account.id, date: '2026-03-31', entry_lines: [{ journal_entry_line_id: foreign.lines[0].id }, { journal_entry_line_id: pay.id }] });
      expect(res2.status).toBe(400);
      expect(res2.body.error).toMatch(/does not exist in client account/);
    });

    it.each([
      ['missing client_account_id', (body: Record<string, unknown>) => ({ ...body, client_account_id: undefined })],
      ['invalid client_account_id', (body: Record<string, unknown>) => ({ ...body, client_account_id: 'abc' })],
      ['no access', (body: Record<string, unknown>) => ({ ...body, client_account_id: other.account.id })],
      ['an empty body: a body, without client_account_id', () => ({})],
    ])('Create 403 (%s)', async (_rule, change) => {
      const res = await post(change({ date: '2026-03-31', entry_lines: [{ journal_entry_line_id: 1 }, { journal_entry_line_id: 2 }] }));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: expect.any(String), status: 403 });
    });
  });

  describe('foreign currencies (spec 001 "Balancing rules")', () => {
    /** An EUR invoice: 1500 debit in EUR at a rate. */
    async function eurInvoice(eur: string, nok: string) {
      return invoice(nok, { currency_code: 'EUR', debit_fc: eur });
    }
    async function eurPayment(eur: string, nok: string) {
      const e = await entry([
        { posting_date: '2026-03-20', account_code: '1920', debit: nok, credit: 0 },
        { posting_date: '2026-03-20', account_code: '1500', debit: 0, credit: nok, currency_code: 'EUR', credit_fc: eur, dimensions: partner() },
      ]);
      return e.lines[1];
    }

    it('"all entries share one foreign currency and only the local side is unbalanced": an exchange gain entry is posted automatically and linked', async () => {
      const inv = await eurInvoice('100.00', '1100.00'); // 11.00
      const pay = await eurPayment('100.00', '1150.00'); // 11.50: 50.00 more than booked, a gain
      const r = await reconcile([{ journal_entry_line_id: inv.id }, { journal_entry_line_id: pay.id }]);
      expect(r.exchange_entry_id).toEqual(expect.any(Number));
      expect(r.entries).toHaveLength(3);
      expect(r.entries[2]).toMatchObject({ journal_entry_id: r.exchange_entry_id, debit: '50.00', credit: '0.00' });
      const fx = await app.http('GET', `/api/v2/journal-entries/${r.exchange_entry_id}`, { token: t.user.token });
      expect(fx.body.is_draft).toBe(false);
      expect(fx.body.lines.map((l: any) => [l.account_code, l.debit, l.credit, l.dimensions.map((d: any) => d.id)])).toEqual([
        ['1500', '50.00', '0.00', [customer]],
        ['8060', '0.00', '50.00', []],
      ]);
      expect(fx.body.lines[0].reconciled_amount).toBe('50.00');
      expect((await line(inv.id)).reconciledAmountFc.toFixed(2)).toBe('100.00');
      expect((await line(pay.id)).reconciledAmount.toFixed(2)).toBe('1150.00');
    });

    it('a loss goes to disagio 8160', async () => {
      const inv = await eurInvoice('100.00', '1150.00');
      const pay = await eurPayment('100.00', '1100.00');
      const r = await reconcile([{ journal_entry_line_id: inv.id }, { journal_entry_line_id: pay.id }]);
      const fx = await app.http('GET', `/api/v2/journal-entries/${r.exchange_entry_id}`, { token: t.user.token });
      expect(fx.body.lines.map((l: any) => [l.account_code, l.debit, l.credit])).toEqual([
        ['1500', '0.00', '50.00'],
        ['8160', '50.00', '0.00'],
      ]);
    });

    it('"a part-reconciled line keeps the line’s implied rate (local ÷ foreign, not the stored exchange_rate)": the local amount is derived from the foreign one, and the last part takes the rest exactly', async () => {
      const inv = await eurInvoice('300.00', '3412.50'); // implied 11.375
      const pay1 = await eurPayment('100.00', '1137.50');
      const pay2 = await eurPayment('200.00', '2275.00');
      const r1 = await reconcile([{ journal_entry_line_id: inv.id, debit_fc: '100.00' }, { journal_entry_line_id: pay1.id }]);
      expect(r1.entries[0]).toMatchObject({ debit: '1137.50', debit_fc: '100.00' });
      const r2 = await reconcile([{ journal_entry_line_id: inv.id, debit_fc: '200.00' }, { journal_entry_line_id: pay2.id }]);
      expect(r2.entries[0]).toMatchObject({ debit: '2275.00', debit_fc: '200.00' });
      const l = await line(inv.id);
      expect([l.reconciledAmount.toFixed(2), l.reconciledAmountFc.toFixed(2)]).toEqual(['3412.50', '300.00']);
    });

    it.each([
      ['within one minor unit on the local side: accepted', '455.01', 201],
      ['exactly at the implied rate', '455.00', 201],
      ['one øre below: accepted', '454.99', 201],
      ['beyond the tolerance: "FC scaling not preserved"', '455.02', 400],
    ])('implied rate 11.375, 40.00 EUR given as %s (%s NOK)', async (_rule, local, status) => {
      const inv = await eurInvoice('100.00', '1137.50');
      const pay = await eurPayment('40.00', local);
      const res = await post({ client_account_id: t.account.id, date: '2026-03-31', entry_lines: [{ journal_entry_line_id: inv.id, debit: local, debit_fc: '40.00' }, { journal_entry_line_id: pay.id }] });
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      if (status === 400) expect(res.body.error).toMatch(/FC scaling not preserved: 40\.00 EUR at the line's implied rate \(1137\.50 \/ 100\.00\) is 455\.00 NOK, not 455\.02/);
    });

    it('"entries span more than one currency": no summing of foreign amounts, a local residual must be balanced by an agio/disagio line in the request', async () => {
      const inv = await eurInvoice('100.00', '1100.00');
      const pay = await payment('1150.00'); // paid in NOK
      const res = await post({ client_account_id: t.account.id, date: '2026-03-31', entry_lines: [{ journal_entry_line_id: inv.id }, { journal_entry_line_id: pay.id }] });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/not summed across currencies: balance the residual with an agio\/disagio line/);
      // the agio line in the request balances it
      const agio = await entry([
        { posting_date: '2026-03-31', account_code: '1500', debit: 50, credit: 0, dimensions: partner() },
        { posting_date: '2026-03-31', account_code: '8060', debit: 0, credit: 50 },
      ]);
      const r = await reconcile([{ journal_entry_line_id: inv.id }, { journal_entry_line_id: pay.id }, { journal_entry_line_id: agio.lines[0].id }]);
      expect(r.exchange_entry_id).toBeNull();
    });

    it('one foreign currency unbalanced in that currency too: 400', async () => {
      const inv = await eurInvoice('100.00', '1100.00');
      const pay = await eurPayment('90.00', '1100.00');
      const res = await post({ client_account_id: t.account.id, date: '2026-03-31', entry_lines: [{ journal_entry_line_id: inv.id, debit_fc: '80.00' }, { journal_entry_line_id: pay.id }] });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/entries do not balance in NOK: debit 880\.00, credit 1100\.00, difference -220\.00; in EUR the difference is -10\.00/);
    });
  });

  describe('GET /reconciliations', () => {
    let committed: any;
    let proposal: number;
    let gone: any;

    beforeAll(async () => {
      committed = await reconcile([{ journal_entry_line_id: (await invoice('31.00')).id }, { journal_entry_line_id: (await payment('31.00')).id }], '2026-04-02');
      proposal = await draft([{ line: await invoice('32.00'), debit: '32.00' }, { line: await payment('32.00'), credit: '32.00' }]);
      gone = await reconcile([{ journal_entry_line_id: (await invoice('33.00')).id }, { journal_entry_line_id: (await payment('33.00')).id }], '2026-04-03');
      expect((await del(gone.id)).status).toBe(204);
    });

    it('the page envelope; "page (default 0)", per_page 100; relations are opt-in', async () => {
      const res = await list('');
      expect(res.status).toBe(200);
      expect(res.body.meta).toMatchObject({ page: 0, per_page: 100 });
      expect(res.body.meta.records).toBe(res.body.data.length);
      const one = res.body.data.find((r: any) => r.id === committed.id);
      expect(one).toBeDefined();
      expect(one.entries).toBeUndefined();
      expect(one.created_by).toBeUndefined();
      const paged = await list('page=1&per_page=1');
      expect(paged.body.meta).toMatchObject({ page: 1, per_page: 1, pages: res.body.meta.records });
      expect(paged.body.data[0].id).toBe(res.body.data[1].id);
    });

    it('"is_draft (omit for both)"', async () => {
      const both = (await list('')).body.data.map((r: any) => r.id);
      expect(both).toEqual(expect.arrayContaining([committed.id, proposal]));
      expect((await list('is_draft=true')).body.data.map((r: any) => r.id)).toContain(proposal);
      expect((await list('is_draft=true')).body.data.every((r: any) => r.is_draft)).toBe(true);
      expect((await list('is_draft=false')).body.data.map((r: any) => r.id)).not.toContain(proposal);
    });

    it('"is_deleted (default false; omitting does not return both)"', async () => {
      expect((await list('')).body.data.map((r: any) => r.id)).not.toContain(gone.id);
      const deleted = (await list('is_deleted=true')).body.data;
      expect(deleted.map((r: any) => r.id)).toContain(gone.id);
      for (const r of deleted) expect(r).toMatchObject({ is_deleted: true, deleted_by_id: t.user.id, deleted_at: expect.any(String) });
    });

    it('date_from/date_to, journal_entry_line_id and journal_entry_id filter; with=entries,entries.journal_entry_line,created_by embeds', async () => {
      expect((await list('date_from=2026-04-02&date_to=2026-04-02')).body.data.map((r: any) => r.id)).toEqual([committed.id]);
      const lineId = committed.entries[0].journal_entry_line_id;
      expect((await list(`journal_entry_line_id=${lineId}`)).body.data.map((r: any) => r.id)).toEqual([committed.id]);
      expect((await list(`journal_entry_id=${committed.entries[1].journal_entry_id}`)).body.data.map((r: any) => r.id)).toEqual([committed.id]);
      const res = await list(`journal_entry_line_id=${lineId}&with=entries.journal_entry_line,created_by`);
      const r = res.body.data[0];
      expect(r.created_by).toMatchObject({ id: t.user.id, email: t.user.email });
      expect(r.entries[0].journal_entry_line).toMatchObject({ id: lineId, account_code: '1500', debit: '31.00', reconciled_amount: '31.00' });
    });

    it.each([
      ['missing client_account_id', '/api/v2/reconciliations'],
      ['invalid client_account_id', '/api/v2/reconciliations?client_account_id=x'],
    ])('list 403 (%s)', async (_rule, path) => {
      const res = await app.http('GET', path, { token: t.user.token });
      expect(res.status).toBe(403);
    });

    it('list 403 (no access)', async () => {
      const res = await app.http('GET', `/api/v2/reconciliations?client_account_id=${other.account.id}`, { token: t.user.token });
      expect(res.status).toBe(403);
    });
  });

  describe('PATCH /reconciliations/{id}', () => {
    it('"draft → PATCH is_draft false → committed": sequence_number assigned, the lines updated, 200 with entries', async () => {
      const inv = await invoice('41.00');
      const pay = await payment('41.00');
      const id = await draft([{ line: inv, debit: '41.00' }, { line: pay, credit: '41.00' }]);
      expect((await line(inv.id)).reconciledAmount.toFixed(2)).toBe('0.00');
      const res = await patch(id, { is_draft: false });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, is_draft: false });
      expect(res.body.sequence_number).toBeGreaterThan(0);
      expect(res.body.entries).toHaveLength(2);
      expect((await line(inv.id)).reconciledAmount.toFixed(2)).toBe('41.00');
      // "committed → PATCH is_draft false → No-op, 200"
      const again = await patch(id, { is_draft: false });
      expect(again.status).toBe(200);
      expect(again.body.sequence_number).toBe(res.body.sequence_number);
      expect((await line(inv.id)).reconciledAmount.toFixed(2)).toBe('41.00');
      // "committed → PATCH is_draft true → rejected, 400"
      const reopen = await patch(id, { is_draft: true });
      expect(reopen.status).toBe(400);
      expect(reopen.body.error).toMatch(/cannot be reopened/);
    });

    it.each([
      ['missing is_draft', {}, /is_draft: is required/],
      ['missing body', undefined, /is_draft: is required/],
      ['non-boolean is_draft', { is_draft: 'false' }, /is_draft/],
      ['unsupported field', { is_draft: false, reconciliation_date: '2026-01-01' }, /reconciliation_date: is not a known field/],
      ['is_draft true on a draft', { is_draft: true }, /is_draft: must be false/],
    ])('400 (%s)', async (_rule, body, message) => {
      const id = await draft([{ line: await invoice('42.00'), debit: '42.00' }, { line: await payment('42.00'), credit: '42.00' }]);
      const res = await patch(id, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(message), status: 400 });
      expect((await app.seed.prisma.reconciliation.findUniqueOrThrow({ where: { id } })).isDraft).toBe(true);
    });

    it('"409 (already deleted; checked first)": even with is_draft true', async () => {
      const r = await reconcile([{ journal_entry_line_id: (await invoice('43.00')).id }, { journal_entry_line_id: (await payment('43.00')).id }]);
      expect((await del(r.id)).status).toBe(204);
      for (const body of [{ is_draft: false }, { is_draft: true }]) {
        const res = await patch(r.id, body);
        expect(res.status).toBe(409);
        expect(res.body).toEqual({ error: expect.stringMatching(/was deleted/), status: 409 });
      }
    });

    it('"a cited line was reconciled elsewhere → draft deleted, 409"', async () => {
      const inv = await invoice('44.00');
      const id = await draft([{ line: inv, debit: '44.00' }, { line: await payment('44.00'), credit: '44.00' }]);
      await reconcile([{ journal_entry_line_id: inv.id }, { journal_entry_line_id: (await payment('44.00')).id }]);
      const res = await patch(id, { is_draft: false });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatch(/stale and was deleted: journal entry line \d+ was reconciled elsewhere/);
      expect(await app.seed.prisma.reconciliation.findUnique({ where: { id } })).toBeNull();
    });

    it('"a cited line was cancelled → draft deleted, 409"', async () => {
      const inv = await invoice('45.00');
      const id = await draft([{ line: inv, debit: '45.00' }, { line: await payment('45.00'), credit: '45.00' }]);
      await app.http('PATCH', `/api/v2/journal-entries/${inv.journal_entry_id}`, { token: t.user.token, body: { cancelled: 'Y', cancellation_reason: 'duplicate' } });
      const res = await patch(id, { is_draft: false });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatch(/a cancelled line cannot be reconciled/);
      expect(await app.seed.prisma.reconciliation.findUnique({ where: { id } })).toBeNull();
    });

    it('403 (another client account’s), 404 (none)', async () => {
      const id = await draft([{ line: await invoice('46.00'), debit: '46.00' }, { line: await payment('46.00'), credit: '46.00' }]);
      expect((await patch(id, { is_draft: false }, other.user.token)).status).toBe(403);
      expect((await patch(999999, { is_draft: false })).status).toBe(404);
    });
  });

  describe('DELETE /reconciliations/{id}', () => {
    it('"draft → removed (hard delete), 204"', async () => {
      const id = await draft([{ line: await invoice('51.00'), debit: '51.00' }, { line: await payment('51.00'), credit: '51.00' }]);
      const res = await del(id);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(await app.seed.prisma.reconciliation.findUnique({ where: { id } })).toBeNull();
    });

    it('"committed → soft-deleted (is_deleted true, deleted_at and deleted_by_id set); reconciled amount released; repeat DELETE returns 204"', async () => {
      const inv = await invoice('52.00');
      const pay = await payment('52.00');
      const r = await reconcile([{ journal_entry_line_id: inv.id }, { journal_entry_line_id: pay.id }]);
      expect((await del(r.id)).status).toBe(204);
      const row = await app.seed.prisma.reconciliation.findUniqueOrThrow({ where: { id: r.id } });
      expect(row.deletedAt).not.toBeNull();
      expect(row.deletedById).toBe(t.user.id);
      expect((await line(inv.id)).reconciledAmount.toFixed(2)).toBe('0.00');
      expect((await line(pay.id)).reconciledAmountFc.toFixed(2)).toBe('0.00');
      expect((await del(r.id)).status).toBe(204);
      expect((await line(inv.id)).reconciledAmount.toFixed(2)).toBe('0.00');
      // released: the lines can be reconciled again
      await reconcile([{ journal_entry_line_id: inv.id }, { journal_entry_line_id: pay.id }]);
    });

    it('deleting a reconciliation cancels its automatic exchange entry with a reversal', async () => {
      const inv = await invoice('1100.00', { currency_code: 'EUR', debit_fc: '100.00' });
      const payEntry = await entry([
        { posting_date: '2026-03-20', account_code: '1920', debit: '1150.00', credit: 0 },
        { posting_date: '2026-03-20', account_code: '1500', debit: 0, credit: '1150.00', currency_code: 'EUR', credit_fc: '100.00', dimensions: partner() },
      ]);
      const r = await reconcile([{ journal_entry_line_id: inv.id }, { journal_entry_line_id: payEntry.lines[1].id }]);
      expect((await del(r.id)).status).toBe(204);
      const fx = await app.http('GET', `/api/v2/journal-entries/${r.exchange_entry_id}`, { token: t.user.token });
      expect(fx.body.cancelled).toBe('Y');
      expect(fx.body.lines[0].reconciled_amount).toBe('0.00');
    });

    it('403 (another client account’s), 404 (none)', async () => {
      const id = await draft([{ line: await invoice('53.00'), debit: '53.00' }, { line: await payment('53.00'), credit: '53.00' }]);
      expect((await del(id, other.user.token)).status).toBe(403);
      expect((await del(999999)).status).toBe(404);
    });
  });

  it('"two reconciliations racing for the same open amount never over-reconcile a line": eight at once, one wins', async () => {
    const inv = await invoice('900.00');
    const payments = await Promise.all(Array.from({ length: 8 }, () => payment('900.00')));
    const answers = await Promise.all(
      payments.map((p) => post({ client_account_id: t.account.id, date: '2026-03-31', entry_lines: [{ journal_entry_line_id: inv.id }, { journal_entry_line_id: p.id }] })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 400, 400, 400, 400, 400, 400, 400]);
    for (const a of answers.filter((x) => x.status === 400)) expect(a.body.error).toMatch(/exceeds the remaining unreconciled amount/);
    expect((await line(inv.id)).reconciledAmount.toFixed(2)).toBe('900.00');
  });
});
