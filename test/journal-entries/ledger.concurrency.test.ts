import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type HttpResult, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { verifyLedger } from '../../src/modules/journal-entries/ledger-chain.ts';

// spec 001 "sequence numbers are unique, increasing and gapless per client account", under load; and
// the hash chain's tamper evidence (src/modules/journal-entries/ledger-chain.ts): a posted row
// changed or removed behind the API's back is named by verifyLedger.

const WRITERS = 50;
/** new entries each writer posts (POST /journal-entries/) */
const POSTS_PER_WRITER = 3;
/** writers 0..SPECIAL-1 also post a draft (PUT is_draft false); the next SPECIAL cancel a posted entry */
const SPECIAL = 15;

describe.each(targets())('ledger under concurrency (%s)', (target) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp(target);
  });
  afterAll(() => app?.close());

  const line = (account_code: string, debit: string | number, credit: string | number, extra: Record<string, unknown> = {}) => ({
    posting_date: '2026-03-15',
    account_code,
    debit,
    credit,
    ...extra,
  });

  /** An entry of writer `w`'s `k`-th posting: amounts differ per writer and posting, some on 1500 with the customer. */
  const body = (clientAccountId: number, customer: number, w: number, k: number, extra: Record<string, unknown> = {}) => {
    const amount = `${100 + w}.${String(k).padStart(2, '0')}`;
    const lines =
      (w + k) % 3 === 0
        ? [line('1500', amount, 0, { dimensions: [{ type: 'businesspartner', id: customer }] }), line('3000', 0, amount)]
        : [line('6300', amount, 0), line('1920', 0, amount)];
    return { client_account_id: clientAccountId, description: `Skriver ${w} nr. ${k}`, lines, ...extra };
  };

  // Through the admission gate (4 requests worked on at once, the rest queued in arrival order) and
  // with the gate off, so that all 50 writers reach the database together (on PostgreSQL up to the
  // pool's 10 transactions at once, waiting on the chain head's row lock; on PGlite queued on its one
  // connection). The gate's shedding (queue timeout, event-loop lag) is off here: whether a loaded
  // machine sheds a request is the admission tests' subject, not the ledger's, and with it on the
  // answer would depend on the machine's speed.
  it.each([
    ['4 at once through the admission queue', { REQUEST_CONCURRENCY: '4', REQUEST_QUEUE_TIMEOUT_MS: '120000', REQUEST_MAX_EVENT_LOOP_DELAY_MS: '0' }],
    ['admission control off', { REQUEST_CONCURRENCY: '0' }],
  ])(`${WRITERS} concurrent writers in one client account (POST, PUT posting drafts, PATCH cancelling), %s: every answer 201/200, numbers 1..N without gaps, nothing lost, the chain verifies`, async (_gate, env) => {
    const server = Object.keys(env).length ? await startTestApp(target, { database: app.db, env }) : app;
    try {
      await race(server);
    } finally {
      if (server !== app) await server.close();
    }
  }, 120_000);

  async function race(server: TestApp) {
    const t = await app.seed.tenant();
    const clientAccountId = t.account.id;
    const customer = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId, name: 'Kunde AS', isCustomer: true } })).id;
    // every writer is a user of its own with the CA role on the account
    const writers = await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        const user = await app.seed.user();
        await app.seed.grantRole({ userId: user.id, clientAccountId, role: 'CA' });
        return user;
      }),
    );
    const api = (token: string, method: string, path: string, payload: unknown) => server.http(method, `/api/v2${path}`, { token, body: payload });

    // before the race: drafts for the PUTs to post and posted entries for the PATCHes to cancel
    const drafts: { id: number; body: ReturnType<typeof body> }[] = [];
    const toCancel: number[] = [];
    for (let i = 0; i < SPECIAL; i++) {
      const draft = body(clientAccountId, customer, 1000 + i, 0, { is_draft: true });
      const d = await api(t.user.token, 'POST', '/journal-entries/', draft);
      expect(d.status, JSON.stringify(d.body)).toBe(201);
      drafts.push({ id: d.body.id, body: draft });
      const p = await api(t.user.token, 'POST', '/journal-entries/', body(clientAccountId, customer, 2000 + i, 0));
      expect(p.status, JSON.stringify(p.body)).toBe(201);
      toCancel.push(p.body.id);
    }
    const postedBefore = SPECIAL;

    type Answer = { what: string; expected: number; res: HttpResult; by?: number };
    const writer = async (w: number): Promise<Answer[]> => {
      const token = writers[w].token;
      const by = writers[w].id;
      const actions: (() => Promise<Answer>)[] = Array.from({ length: POSTS_PER_WRITER }, (_, k) => async () => ({
        what: `writer ${w}: POST entry ${k + 1}`,
        expected: 201,
        by,
        res: await api(token, 'POST', '/journal-entries/', body(clientAccountId, customer, w, k + 1)),
      }));
      if (w < SPECIAL) {
        const { id, body: draft } = drafts[w];
        actions.splice(w % (POSTS_PER_WRITER + 1), 0, async () => ({
          what: `writer ${w}: PUT draft ${id} with is_draft false`,
          expected: 200,
          by,
          res: await api(token, 'PUT', `/journal-entries/${id}`, { ...draft, is_draft: false }),
        }));
      } else if (w < 2 * SPECIAL) {
        const id = toCancel[w - SPECIAL];
        actions.splice(w % (POSTS_PER_WRITER + 1), 0, async () => ({
          what: `writer ${w}: PATCH entry ${id} cancelled Y`,
          expected: 200,
          res: await api(token, 'PATCH', `/journal-entries/${id}`, { cancelled: 'Y', cancellation_reason: `Feilføring ${w}` }),
        }));
      } else {
        actions.push(async () => ({
          what: `writer ${w}: POST entry ${POSTS_PER_WRITER + 1}`,
          expected: 201,
          by,
          res: await api(token, 'POST', '/journal-entries/', body(clientAccountId, customer, w, POSTS_PER_WRITER + 1)),
        }));
      }
      const answers: Answer[] = [];
      for (const action of actions) answers.push(await action());
      return answers;
    };
    const answers = (await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)))).flat();

    // every answer is the one a sequential run gives: no 500, no 409 (lost race), no 503 (shed)
    const wrong = answers.filter((a) => a.res.status !== a.expected).map((a) => `${a.what}: ${a.res.status} ${a.res.text.slice(0, 200)}`);
    expect(wrong).toEqual([]);
    expect(answers).toHaveLength(WRITERS * (POSTS_PER_WRITER + 1));

    // the numbers the answers carry: one each, unique; a cancel's reversal takes one too
    const numbered = answers.filter((a) => a.expected === 201 || a.what.includes('PUT')).map((a) => a.res.body.sequence_number as number);
    expect(new Set(numbered).size).toBe(numbered.length);
    const cancels = answers.filter((a) => a.what.includes('PATCH'));
    for (const c of cancels) expect(c.res.body).toMatchObject({ cancelled: 'Y', cancellation_entry_id: expect.any(Number) });
    for (const a of answers.filter((x) => x.what.includes('PUT'))) expect(a.res.body).toMatchObject({ is_draft: false, sequence_number: expect.any(Number) });
    // each posting is the writer's own
    for (const a of answers.filter((x) => x.by)) expect(a.res.body.posted_by_id, a.what).toBe(a.by);

    // nothing lost: the ledger holds exactly what succeeded, numbered 1..N
    const expectedPosted = postedBefore + numbered.length + cancels.length;
    const rows = await app.seed.prisma.journalEntry.findMany({
      where: { clientAccountId, isDraft: false },
      select: { id: true, sequenceNumber: true, cancelled: true },
      orderBy: { sequenceNumber: 'asc' },
    });
    expect(rows.map((r) => r.sequenceNumber)).toEqual(Array.from({ length: expectedPosted }, (_, k) => k + 1));
    expect(await app.seed.prisma.journalEntry.count({ where: { clientAccountId, isDraft: true } })).toBe(0);
    expect(rows.filter((r) => r.cancelled === 'C')).toHaveLength(SPECIAL);
    expect(rows.filter((r) => r.cancelled === 'Y').map((r) => r.id).sort((a, b) => a - b)).toEqual([...toCancel].sort((a, b) => a - b));
    const bySeq = new Map(rows.map((r) => [r.sequenceNumber, r]));
    for (const n of numbered) expect(bySeq.get(n), `number ${n} from an answer is in the ledger`).toBeDefined();
    expect((await app.seed.prisma.ledgerChain.findUnique({ where: { clientAccountId } }))?.lastNumber).toBe(expectedPosted);

    const verification = await verifyLedger(app.seed.prisma, clientAccountId);
    expect(verification, JSON.stringify(verification.broken)).toMatchObject({ ok: true, entries: expectedPosted, brokenCount: 0 });
  }

  it('writers racing for the same entry: one wins, every other one gets the answer a sequential run gives (400 or 404), and the ledger verifies', async () => {
    const server = await startTestApp(target, { database: app.db, env: { REQUEST_CONCURRENCY: '0' } });
    try {
      const t = await app.seed.tenant();
      const clientAccountId = t.account.id;
      const api = (method: string, path: string, payload?: unknown) => server.http(method, `/api/v2${path}`, { token: t.user.token, body: payload });
      const entry = (extra: Record<string, unknown> = {}) => ({ client_account_id: clientAccountId, lines: [line('6300', 10, 0), line('1920', 0, 10)], ...extra });
      const posted = (await api('POST', '/journal-entries/', entry())).body.id;
      const draft = (await api('POST', '/journal-entries/', entry({ is_draft: true }))).body.id;
      const contested = (await api('POST', '/journal-entries/', entry({ is_draft: true }))).body.id;

      const [cancels, puts, contest] = await Promise.all([
        Promise.all(Array.from({ length: 8 }, () => api('PATCH', `/journal-entries/${posted}`, { cancelled: 'Y', cancellation_reason: 'Dobbelt' }))),
        Promise.all(Array.from({ length: 8 }, () => api('PUT', `/journal-entries/${draft}`, entry({ is_draft: false })))),
        // a draft deleted, posted and cancelled at once: whichever comes first decides the others' answers
        Promise.all([
          api('PUT', `/journal-entries/${contested}`, entry({ is_draft: false })),
          api('DELETE', `/journal-entries/${contested}`),
          api('PATCH', `/journal-entries/${contested}`, { cancelled: 'Y' }),
          api('PUT', `/journal-entries/${contested}`, entry({ is_draft: false })),
        ]),
      ]);
      const statuses = (answers: HttpResult[]) => answers.map((r) => r.status).sort();
      expect(statuses(cancels)).toEqual([200, ...Array(7).fill(400)]);
      for (const r of cancels.filter((x) => x.status === 400)) expect(r.body.error).toContain('already cancelled');
      expect(statuses(puts)).toEqual([200, ...Array(7).fill(400)]);
      for (const r of puts.filter((x) => x.status === 400)) expect(r.body.error).toContain('not a draft');
      expect(contest.filter((r) => r.status === 200), contest.map((r) => `${r.status} ${r.text}`).join('\n')).toHaveLength(1);
      expect(contest.every((r) => [200, 400, 404].includes(r.status))).toBe(true);

      const postedNow = await app.seed.prisma.journalEntry.count({ where: { clientAccountId, isDraft: false } });
      const contestPosted = contest[0].status === 200 || contest[3].status === 200 ? 1 : 0;
      // the posted entry, its reversal, the posted draft and the contested draft if a PUT won
      expect(postedNow).toBe(3 + contestPosted);
      expect(await verifyLedger(app.seed.prisma, clientAccountId)).toMatchObject({ ok: true, entries: 3 + contestPosted });
    } finally {
      await server.close();
    }
  });

  describe('verifyLedger names what was changed behind the API', () => {
    /** A client account with five posted entries (numbers 1..5); returns their ids by number. */
    async function ledgerOfFive(): Promise<{ t: Tenant; ids: number[] }> {
      const t = await app.seed.tenant();
      const ids: number[] = [];
      for (let k = 1; k <= 5; k++) {
        const res = await app.http('POST', '/api/v2/journal-entries/', {
          token: t.user.token,
          body: { client_account_id: t.account.id, description: `Bilag ${k}`, lines: [line('6300', `${k}00.00`, 0), line('1920', 0, `${k}00.00`)] },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        expect(res.body.sequence_number).toBe(k);
        ids.push(res.body.id);
      }
      expect(await verified(t.account.id)).toMatchObject({ ok: true, entries: 5 });
      return { t, ids };
    }

    /** verifyLedger's answer, the same whether it reads the ledger in one batch or in batches of two (the break crosses batches). */
    async function verified(clientAccountId: number) {
      const whole = await verifyLedger(app.seed.prisma, clientAccountId);
      expect(await verifyLedger(app.seed.prisma, clientAccountId, 2)).toEqual(whole);
      return whole;
    }

    it.each([
      ['a line of entry 3 gets one krone more debit', (id: number) => `UPDATE journal_entry_lines SET debit = debit + 1 WHERE journal_entry_id = ${id} AND debit > 0`],
      ["entry 3's description is changed", (id: number) => `UPDATE journal_entries SET description = 'Endret i databasen' WHERE id = ${id}`],
      [
        'a line of entry 3 moves to another account',
        (id: number) =>
          `UPDATE journal_entry_lines l SET account_id = (SELECT a.id FROM accounts a WHERE a.client_account_id = l.client_account_id AND a.code = '6340') WHERE journal_entry_id = ${id} AND debit > 0`,
      ],
    ])('%s with SQL: entry 3 is the first (and only) broken link', async (_what, sql) => {
      const { t, ids } = await ledgerOfFive();
      expect(await app.seed.prisma.$executeRawUnsafe(sql(ids[2]))).toBe(1);
      const v = await verified(t.account.id);
      expect(v.ok).toBe(false);
      expect(v.entries).toBe(5);
      expect(v.broken[0]).toMatchObject({ sequenceNumber: 3, entryId: ids[2], reason: expect.stringContaining('does not match its hash') });
      // the next links chain the stored hash, so entries 4 and 5 still verify
      expect(v.brokenCount).toBe(1);
    });

    it("a line of entry 3 moved to another client account with SQL (it would leave the account's balances): entry 3 is named", async () => {
      const { t, ids } = await ledgerOfFive();
      const other = await app.seed.tenant();
      expect(await app.seed.prisma.$executeRawUnsafe(`UPDATE journal_entry_lines SET client_account_id = ${other.account.id} WHERE journal_entry_id = ${ids[2]} AND debit > 0`)).toBe(1);
      const v = await verified(t.account.id);
      expect(v.ok).toBe(false);
      expect(v.broken[0]).toMatchObject({ sequenceNumber: 3, entryId: ids[2], reason: expect.stringContaining(`recorded under client account ${other.account.id}`) });
    });

    it('the last posted entry deleted with SQL: the chain head mismatch is reported', async () => {
      const { t, ids } = await ledgerOfFive();
      expect(await app.seed.prisma.$executeRawUnsafe(`DELETE FROM journal_entries WHERE id = ${ids[4]}`)).toBe(1);
      const v = await verified(t.account.id);
      expect(v).toMatchObject({ ok: false, entries: 4, brokenCount: 1 });
      expect(v.broken[0]).toEqual({
        sequenceNumber: null,
        entryId: null,
        reason: 'the chain head says 5 entries were posted, the ledger holds 4: posted entries were removed',
      });
    });

    it('an entry in the middle deleted with SQL: the gap is reported at the entry after it', async () => {
      const { t, ids } = await ledgerOfFive();
      expect(await app.seed.prisma.$executeRawUnsafe(`DELETE FROM journal_entries WHERE id = ${ids[1]}`)).toBe(1);
      const v = await verified(t.account.id);
      expect(v.ok).toBe(false);
      expect(v.broken[0]).toMatchObject({ sequenceNumber: 3, entryId: ids[2], reason: expect.stringContaining('jump from 1 to 3') });
    });
  });
});
