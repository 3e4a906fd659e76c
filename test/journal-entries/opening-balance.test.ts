import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '@prisma/client/runtime/client';
import { canonicalContent, verifyLedger, type ChainEntry, type ChainLine } from '../../src/modules/journal-entries/ledger-chain.ts';
import { openingBalanceIssues } from '../../src/modules/journal-entries/journal-entries.rules.ts';
import { errorCode, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// Issue 28, item 1: "Opening balances are a concept of the ledger". An entry can be the opening
// balance of a year (is_opening_balance, our extension of spec 001): "at most one per client account
// and year; only balance-sheet accounts"; reports, the yearly accounts, their notes and the SAF-T
// export "treat it as the incoming balance of that year and as the closing balance of the year
// before — never as the year's movement".

const d = (iso: string) => new Date(`${iso}T00:00:00.000Z`);

describe('the opening-balance rule (pure)', () => {
  it('"every line of an opening entry has the same posting date, the first day of a year; only balance-sheet accounts"', () => {
    expect(openingBalanceIssues([{ postingDate: d('2025-01-01'), accountCode: '1920' }, { postingDate: d('2025-01-01'), accountCode: '2000' }])).toEqual([]);
    expect(openingBalanceIssues([{ postingDate: d('2025-01-02'), accountCode: '1920' }, { postingDate: d('2025-01-02'), accountCode: '2000' }])).toEqual([
      { path: ['lines', 0, 'postingDate'], message: 'an opening balance is dated the first day of its year (1 January), not 2025-01-02' },
    ]);
    expect(openingBalanceIssues([{ postingDate: d('2025-01-01'), accountCode: '1920' }, { postingDate: d('2024-01-01'), accountCode: '2000' }])).toEqual([
      { path: ['lines', 1, 'postingDate'], message: "every line of an opening balance has the same posting date: 2024-01-01 differs from the first line's 2025-01-01" },
    ]);
    expect(openingBalanceIssues([{ postingDate: d('2025-01-01'), accountCode: '1920' }, { postingDate: d('2025-01-01'), accountCode: '3000', accountField: 'accountId' }])).toEqual([
      { path: ['lines', 1, 'accountId'], message: 'account 3000 is a result account: an opening balance takes balance-sheet accounts only (classes 1 and 2)' },
    ]);
  });

  it('the hash chain covers the flag of an entry that has it, and an entry without it hashes as before the flag existed', () => {
    const entry: ChainEntry = { clientAccountId: 7, description: 'x', voucherId: null, relationType: null, relationId: null, reversesEntryId: null, postedAt: new Date('2026-01-02T10:00:00Z'), postedById: 1 };
    const line = (accountId: number, debit: string, credit: string): ChainLine => ({
      lineId: accountId, postingDate: d('2026-01-01'), description: null, accountId, debit: new Decimal(debit), credit: new Decimal(credit), debitFc: new Decimal(debit), creditFc: new Decimal(credit),
      currencyCode: 'NOK', exchangeRate: new Decimal(1), taxCodeId: null, taxBaseAmount: null, taxBaseAmountFc: null, taxAmount: null, taxAmountFc: null, taxLine: false, taxForLine: null,
      quantity: null, businessPartnerId: null, bankAccountId: null, projectId: null, departmentId: null, assetId: null, tagId: null, itemId: null,
    });
    const lines = [line(1, '10', '0'), line(2, '0', '10')];
    const before = canonicalContent(entry, lines);
    expect(canonicalContent({ ...entry, isOpeningBalance: false }, lines)).toBe(before);
    expect(canonicalContent({ ...entry, isOpeningBalance: true }, lines)).not.toBe(before);
    expect(JSON.parse(canonicalContent({ ...entry, isOpeningBalance: true }, lines))).toEqual([...JSON.parse(before), 'opening balance']);
  });
});

describe.each(targets())('opening balances (%s)', (target) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp(target);
  });
  afterAll(() => app?.close());

  type Line = [string, string, string, Record<string, unknown>?];
  const lines = (date: string, ls: Line[]) => ls.map(([account_code, debit, credit, more]) => ({ posting_date: date, account_code, debit, credit, ...more }));
  const post = (t: Tenant, body: Record<string, unknown>) => app.http('POST', '/api/v2/journal-entries/', { token: t.user.token, body: { client_account_id: t.account.id, ...body } });
  const posted = async (t: Tenant, body: Record<string, unknown>) => {
    const res = await post(t, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  const OPENING: Line[] = [['1920', '60000.00', '0'], ['2000', '0', '60000.00']];

  describe('the flag and its rules', () => {
    let t: Tenant;
    beforeAll(async () => {
      t = await app.seed.tenant();
    });

    it('is_opening_balance is in every entry answer: false by default (a client of spec 001 sees no change), true when set; GET and the list show it', async () => {
      const plain = await posted(t, { lines: lines('2024-03-01', [['6300', '100.00', '0'], ['1920', '0', '100.00']]) });
      expect(plain.is_opening_balance).toBe(false);
      const opening = await posted(t, { description: 'Inngående balanse', is_opening_balance: true, lines: lines('2024-01-01', OPENING) });
      expect(opening).toMatchObject({ is_opening_balance: true, is_draft: false, sequence_number: expect.any(Number) });
      expect((await app.http('GET', `/api/v2/journal-entries/${opening.id}`, { token: t.user.token })).body.is_opening_balance).toBe(true);
      const list = await app.http('GET', `/api/v2/journal-entries?client_account_id=${t.account.id}`, { token: t.user.token });
      expect(list.body.data.map((e: { id: number; is_opening_balance: boolean }) => [e.id, e.is_opening_balance])).toEqual([[plain.id, false], [opening.id, true]]);
    });

    it('"documented in … the OpenAPI": is_opening_balance is a described field of the create body and of the answer', async () => {
      const doc = (await app.http('GET', '/api/v2/openapi.json')).body;
      const create = doc.paths['/journal-entries/'].post;
      const body = create.requestBody.content['application/json'].schema;
      const answer = create.responses['201'].content['application/json'].schema;
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const deref = (s: any): any => (s.$ref ? deref(s.$ref.split('/').slice(1).reduce((o: any, k: string) => o[k], doc)) : s);
      for (const schema of [deref(body), deref(answer)]) {
        expect(schema.properties.is_opening_balance.description).toMatch(/^Our extension of spec 001: the opening balance of the year/);
      }
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['a line not dated 1 January', { lines: lines('2023-03-01', OPENING) }, 'lines.0.posting_date: an opening balance is dated the first day of its year (1 January), not 2023-03-01'],
      [
        'lines of different dates',
        { lines: [...lines('2023-01-01', [['1920', '100.00', '0']]), ...lines('2022-01-01', [['2000', '0', '100.00']])] },
        "lines.1.posting_date: every line of an opening balance has the same posting date: 2022-01-01 differs from the first line's 2023-01-01",
      ],
      ['a result account', { lines: lines('2023-01-01', [['1920', '100.00', '0'], ['3000', '0', '100.00']]) }, 'lines.1.account_code: account 3000 is a result account: an opening balance takes balance-sheet accounts only (classes 1 and 2)'],
    ])('"only balance-sheet accounts", dated the first day of a year: %s is 400 naming the line', async (_what, body, error) => {
      const res = await post(t, { is_opening_balance: true, ...body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error, status: 400 });
    });

    it('a result account named by account_id is named by account_id', async () => {
      const res = await post(t, { is_opening_balance: true, lines: [...lines('2023-01-01', [['1920', '100.00', '0']]), { posting_date: '2023-01-01', account_id: await t.ledgerAccount('6300'), debit: '0', credit: '100.00' }] });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('lines.1.account_id: account 6300 is a result account: an opening balance takes balance-sheet accounts only (classes 1 and 2)');
    });

    it('"at most one per client account and year": a second one is 409 naming the first; another year or another client account is free', async () => {
      const own = await app.seed.tenant();
      const first = await posted(own, { is_opening_balance: true, lines: lines('2025-01-01', OPENING) });
      const second = await post(own, { is_opening_balance: true, lines: lines('2025-01-01', OPENING) });
      expect(second.status).toBe(409);
      expect(second.body).toEqual({ error: `Journal entry ${first.id} is already the opening balance of 2025 for client account ${own.account.id}; cancel it first`, status: 409 });
      await posted(own, { is_opening_balance: true, lines: lines('2026-01-01', OPENING) });
      const other = await app.seed.tenant();
      await posted(other, { is_opening_balance: true, lines: lines('2025-01-01', OPENING) });
    });

    it('a draft holds its year too (posted it would be a second); deleting it frees the year; posting it checks the rules again', async () => {
      const own = await app.seed.tenant();
      const draft = await posted(own, { is_draft: true, is_opening_balance: true, lines: lines('2025-01-01', OPENING) });
      expect(draft).toMatchObject({ is_draft: true, is_opening_balance: true });
      const clash = await post(own, { is_opening_balance: true, lines: lines('2025-01-01', OPENING) });
      expect(clash.body).toEqual({ error: `Journal entry ${draft.id} is already the opening balance of 2025 for client account ${own.account.id}; delete that draft first`, status: 409 });
      // PUT replaces the whole draft: without the flag it is an ordinary entry and the year is free
      const plain = await app.http('PUT', `/api/v2/journal-entries/${draft.id}`, { token: own.user.token, body: { is_draft: true, lines: lines('2025-01-01', OPENING) } });
      expect(plain.status, JSON.stringify(plain.body)).toBe(200);
      expect(plain.body.is_opening_balance).toBe(false);
      const other = await posted(own, { is_draft: true, is_opening_balance: true, lines: lines('2025-01-01', OPENING) });
      // the first draft may not become the year's opening balance again, and the rules apply to a PUT
      const back = await app.http('PUT', `/api/v2/journal-entries/${draft.id}`, { token: own.user.token, body: { is_draft: true, is_opening_balance: true, lines: lines('2025-01-01', OPENING) } });
      expect(back.status).toBe(409);
      const wrong = await app.http('PUT', `/api/v2/journal-entries/${other.id}`, { token: own.user.token, body: { is_opening_balance: true, lines: lines('2025-02-01', OPENING) } });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toContain('lines.0.posting_date: an opening balance is dated the first day of its year');
      const post2 = await app.http('PUT', `/api/v2/journal-entries/${other.id}`, { token: own.user.token, body: { is_draft: false, is_opening_balance: true, lines: lines('2025-01-01', OPENING) } });
      expect(post2.status, JSON.stringify(post2.body)).toBe(200);
      expect(post2.body).toMatchObject({ is_draft: false, is_opening_balance: true, sequence_number: expect.any(Number) });
      expect((await app.http('DELETE', `/api/v2/journal-entries/${draft.id}`, { token: own.user.token })).status).toBe(200);
      expect((await verifyLedger(app.db.prisma, own.account.id)).ok).toBe(true);
    });

    it('cancelled, it frees its year for a new one; its reversal carries the flag', async () => {
      const own = await app.seed.tenant();
      const first = await posted(own, { is_opening_balance: true, lines: lines('2025-01-01', OPENING) });
      const cancel = await app.http('PATCH', `/api/v2/journal-entries/${first.id}`, { token: own.user.token, body: { cancelled: 'Y', cancellation_reason: 'Feil beløp' } });
      expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
      expect(cancel.body).toMatchObject({ cancelled: 'Y', is_opening_balance: true });
      const reversal = await app.http('GET', `/api/v2/journal-entries/${cancel.body.cancellation_entry_id}`, { token: own.user.token });
      expect(reversal.body).toMatchObject({ cancelled: 'C', is_opening_balance: true });
      const again = await posted(own, { is_opening_balance: true, lines: lines('2025-01-01', [['1920', '50000.00', '0'], ['2000', '0', '50000.00']]) });
      expect(again.is_opening_balance).toBe(true);
      expect((await verifyLedger(app.db.prisma, own.account.id)).ok).toBe(true);
    });

    it('"enforced in the same transaction, also under concurrency": of two at once for one year, one is posted and the other is 409', async () => {
      const own = await app.seed.tenant();
      const results = await Promise.all([0, 1, 2].map(() => post(own, { is_opening_balance: true, lines: lines('2025-01-01', OPENING) })));
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
      const winner = results.find((r) => r.status === 201)!.body.id;
      for (const r of results.filter((x) => x.status === 409)) expect(r.body.error).toMatch(new RegExp(`^Journal entry ${winner} is already the opening balance of 2025`));
      expect(await app.db.prisma.journalEntry.count({ where: { clientAccountId: own.account.id, isOpeningBalance: true } })).toBe(1);
    });

    it('the table holds the rule too, for a writer past the service: a second live opening balance of the year, or a year on an entry that is none, is refused', async () => {
      const own = await app.seed.tenant();
      await posted(own, { is_opening_balance: true, lines: lines('2025-01-01', OPENING) });
      const plain = await posted(own, { lines: lines('2025-01-01', OPENING) });
      const sql = (set: string) => app.db.prisma.$executeRawUnsafe(`UPDATE journal_entries SET ${set} WHERE id = $1`, plain.id);
      await expect(sql('is_opening_balance = true, opening_balance_year = 2025')).rejects.toThrow(/opening_balance_year_key|unique/i);
      await expect(sql('opening_balance_year = 2024')).rejects.toThrow(/opening_balance_year_check|check/i);
    });

    it('the hash chain covers the flag: an opening balance whose flag is changed afterwards no longer verifies', async () => {
      const own = await app.seed.tenant();
      const e = await posted(own, { is_opening_balance: true, lines: lines('2025-01-01', OPENING) });
      expect((await verifyLedger(app.db.prisma, own.account.id)).ok).toBe(true);
      await app.db.prisma.$executeRawUnsafe('UPDATE journal_entries SET is_opening_balance = false, opening_balance_year = NULL WHERE id = $1', e.id);
      const v = await verifyLedger(app.db.prisma, own.account.id);
      expect(v.ok).toBe(false);
      expect(v.broken[0]!.reason).toMatch(/does not match its hash/);
    });

    it('GraphQL: isOpeningBalance on input and answer; a refusal is common.validation_error, a second one common.conflict', async () => {
      const own = await app.seed.tenant();
      const CREATE = `mutation($input: CreateJournalEntryInput!) { createJournalEntry(input: $input) { id isOpeningBalance } }`;
      const L = (date: string, ls: Line[]) => ls.map(([accountCode, debit, credit]) => ({ postingDate: date, accountCode, debit, credit }));
      const ok = await app.gql(own.user.token, CREATE, { input: { clientAccountId: own.account.id, isOpeningBalance: true, lines: L('2025-01-01', OPENING) } });
      expect(ok.errors).toBeUndefined();
      expect(ok.data.createJournalEntry.isOpeningBalance).toBe(true);
      const plain = await app.gql(own.user.token, CREATE, { input: { clientAccountId: own.account.id, lines: L('2025-01-01', OPENING) } });
      expect(plain.data.createJournalEntry.isOpeningBalance).toBe(false);
      const result = await app.gql(own.user.token, CREATE, { input: { clientAccountId: own.account.id, isOpeningBalance: true, lines: L('2026-01-01', [['1920', '1.00', '0'], ['3000', '0', '1.00']]) } });
      expect(errorCode(result)).toBe('common.validation_error');
      expect(result.errors![0]!.message).toContain('account 3000 is a result account');
      const second = await app.gql(own.user.token, CREATE, { input: { clientAccountId: own.account.id, isOpeningBalance: true, lines: L('2025-01-01', OPENING) } });
      expect(errorCode(second)).toBe('common.conflict');
    });
  });
});
