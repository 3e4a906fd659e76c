import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '@prisma/client/runtime/client';
import { canonicalContent, verifyLedger, type ChainEntry, type ChainLine } from '../../src/modules/journal-entries/ledger-chain.ts';
import { openingBalanceIssues } from '../../src/modules/journal-entries/journal-entries.rules.ts';
import { checkSaft } from '../../src/modules/reports/saft/saft.checks.ts';
import { errorCode, startTestApp, targets, type TestApp } from '../support/harness.ts';
import { randomOrganizationNumber, type Tenant } from '../support/seed.ts';

// Issue 28, item 1: "Opening balances are a concept of the ledger". An entry can be the opening
// balance of a year (is_opening_balance, our extension of spec 001): "at most one per client account
// and year; only balance-sheet accounts"; reports, the yearly accounts, their notes and the SAF-T
// export "treat it as the incoming balance of that year and as the closing balance of the year
// before — never as the year's movement".

const XSD = resolve(import.meta.dirname, '../../src/modules/reports/saft/Norwegian_SAF-T_Financial_Schema_v_1.30.xsd');
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
  const scratch = mkdtempSync(join(tmpdir(), 'opening-balance-'));

  beforeAll(async () => {
    app = await startTestApp(target);
  });
  afterAll(async () => {
    rmSync(scratch, { recursive: true, force: true });
    await app?.close();
  });

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

  describe('reports, the SAF-T file and the yearly accounts', () => {
    // A company whose books start in 2025 with an opening balance brought from elsewhere:
    //   2025-01-01  opening balance   1200 D 40 000 (machine), 1500 D 5 000 (customer), 1920 D 60 000
    //                                 / 2000 C 30 000, 2050 C 55 000, 2220 C 20 000
    //   2025-01-01  cash sale         1920 D 1 000 / 3000 C 1 000      (dated the same day: movement)
    //   2025-03-10  a new machine     1200 D 10 000 / 1920 C 10 000
    //   2025-05-02  customer pays     1920 D 5 000 / 1500 C 5 000 (customer)
    //   2025-12-31  depreciation      6000 D 5 000 / 1200 C 5 000
    // 2025: result 1 000 − 5 000 = −4 000; equity 85 000 at the start, 81 000 at the end.
    let t: Tenant;
    let customer: number;
    let openingSeq: number;
    let orgnr: string;
    const report = (path: string, qs: string) => app.http('GET', `/api/v2/reports/${path}?client_account_id=${t.account.id}&${qs}`, { token: t.user.token });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const byCode = (rows: any[]): Record<string, any> => Object.fromEntries(rows.map((r) => [r.account_code, r]));
    const figures = (r: { incoming_balance: string; debit: string; credit: string; outgoing_balance: string } | undefined) => r && [r.incoming_balance, r.debit, r.credit, r.outgoing_balance];

    beforeAll(async () => {
      t = await app.seed.tenant();
      orgnr = randomOrganizationNumber();
      await app.seed.prisma.clientAccount.update({ where: { id: t.account.id }, data: { organizationNumber: orgnr } });
      customer = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kafé Lillebror AS', isCustomer: true } })).id;
      const bp = { dimensions: [{ type: 'businesspartner', id: customer }] };
      const opening = await posted(t, {
        description: 'Inngående balanse',
        is_opening_balance: true,
        lines: lines('2025-01-01', [['1200', '40000.00', '0'], ['1500', '5000.00', '0', bp], ['1920', '60000.00', '0'], ['2000', '0', '30000.00'], ['2050', '0', '55000.00'], ['2220', '0', '20000.00']]),
      });
      openingSeq = opening.sequence_number;
      await posted(t, { description: 'Kontantsalg', lines: lines('2025-01-01', [['1920', '1000.00', '0'], ['3000', '0', '1000.00']]) });
      await posted(t, { description: 'Ny kaffebrenner', lines: lines('2025-03-10', [['1200', '10000.00', '0'], ['1920', '0', '10000.00']]) });
      await posted(t, { description: 'Innbetaling', lines: lines('2025-05-02', [['1920', '5000.00', '0'], ['1500', '0', '5000.00', bp]]) });
      await posted(t, { description: 'Avskrivning', lines: lines('2025-12-31', [['6000', '5000.00', '0'], ['1200', '0', '5000.00']]) });
    });

    it('trial balance for the year: "the opening entry is in incoming_balance, not in debit/credit"; a line of the same day that is no opening balance is movement', async () => {
      const res = await report('trial-balance', 'date_from=2025-01-01&date_to=2025-12-31');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const rows = byCode(res.body);
      expect(figures(rows['1200'])).toEqual(['40000.00', '10000.00', '5000.00', '45000.00']);
      expect(figures(rows['1500'])).toEqual(['5000.00', '0.00', '5000.00', '0.00']);
      expect(figures(rows['1920'])).toEqual(['60000.00', '6000.00', '10000.00', '56000.00']);
      expect(figures(rows['3000'])).toEqual(['0.00', '0.00', '1000.00', '-1000.00']);
      // 2000, 2050 and 2220 carry only the opening balance: no movement, so not in the JSON
      expect(Object.keys(rows).sort()).toEqual(['1200', '1500', '1920', '3000', '6000']);
      const all = await app.gql(t.user.token, `query($id: Int!) { trialBalance(clientAccountId: $id, dateFrom: "2025-01-01", dateTo: "2025-12-31", accountCodes: ["2000-2999"], includeZeroMovement: true) { accountCode incomingBalance debit credit outgoingBalance } }`, { id: t.account.id });
      expect(all.errors).toBeUndefined();
      expect(all.data.trialBalance.filter((r: { incomingBalance: string }) => r.incomingBalance !== '0.00')).toEqual([
        { accountCode: '2000', incomingBalance: '-30000.00', debit: '0.00', credit: '0.00', outgoingBalance: '-30000.00' },
        { accountCode: '2050', incomingBalance: '-55000.00', debit: '0.00', credit: '0.00', outgoingBalance: '-55000.00' },
        { accountCode: '2220', incomingBalance: '-20000.00', debit: '0.00', credit: '0.00', outgoingBalance: '-20000.00' },
      ]);
    });

    it('"for a period starting later it is in incoming too"; a period starting before it shows it as movement, and incoming + movement = outgoing either way', async () => {
      const later = byCode((await report('trial-balance', 'date_from=2025-02-01&date_to=2025-12-31')).body);
      expect(figures(later['1200'])).toEqual(['40000.00', '10000.00', '5000.00', '45000.00']);
      expect(figures(later['1920'])).toEqual(['61000.00', '5000.00', '10000.00', '56000.00']);
      const across = byCode((await report('trial-balance', 'date_from=2024-07-01&date_to=2025-06-30')).body);
      expect(figures(across['1200'])).toEqual(['0.00', '50000.00', '0.00', '50000.00']);
      expect(figures(across['2000'])).toEqual(['0.00', '0.00', '30000.00', '-30000.00']);
    });

    it('general ledger of the year: the opening balance is the grouping\'s incoming balance, not among the rows; the sub-ledger the same', async () => {
      const res = await report('general-ledger', 'date_from=2025-01-01&date_to=2025-12-31&account_codes=1200');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.map((r: { posting_date: string; debit: string; credit: string }) => [r.posting_date, r.debit, r.credit])).toEqual([
        ['2025-03-10', '10000.00', '0.00'],
        ['2025-12-31', '0.00', '5000.00'],
      ]);
      expect(res.body.data[0].grouping).toMatchObject({ incoming_balance: '40000.00', movement: '5000.00', outgoing_balance: '45000.00' });
      const receivable = await report('accounts-receivable', 'date_from=2025-01-01&date_to=2025-12-31');
      expect(receivable.body.data.map((r: { posting_date: string; credit: string }) => [r.posting_date, r.credit])).toEqual([['2025-05-02', '5000.00']]);
      expect(receivable.body.data[0].grouping).toMatchObject({ incoming_balance: '5000.00', outgoing_balance: '0.00' });
    });

    it('balance sheet: on 31 December of the year before, the opening balance is its closing balance', async () => {
      const rows = (await report('balance-sheet', 'report_date=2024-12-31')).body as { account_code: string; balance: number }[];
      expect(rows.map((r) => [r.account_code, r.balance])).toEqual([
        ['1200', 40000], ['1500', 5000], ['1920', 60000], ['2000', -30000], ['2050', -55000], ['2220', -20000],
      ]);
      expect((await report('balance-sheet', 'report_date=2024-12-30')).body).toEqual([]);
    });

    it('SAF-T of the year: validates (XSD and checkSaft); "OpeningDebitBalance/OpeningCreditBalance come from it" and "its lines are not among the year\'s transactions"', async () => {
      const res = await app.http('GET', `/api/v2/reports/data-export?client_account_id=${t.account.id}&date_from=2025-01-01&date_to=2025-12-31`, { token: t.user.token, headers: { accept: 'text/xml' } });
      expect(res.status).toBe(200);
      const file = join(scratch, 'year.xml');
      writeFileSync(file, res.text);
      const lint = spawnSync('xmllint', ['--noout', '--schema', XSD, file], { encoding: 'utf8' });
      expect(lint.status, lint.stderr).toBe(0);
      expect(checkSaft(res.text).problems).toEqual([]);
      const parsed = new XMLParser({ parseTagValue: false, isArray: (n) => ['Account', 'Transaction', 'Line', 'Customer', 'BalanceAccount'].includes(n) }).parse(res.text).AuditFile;
      const balance = (code: string) => {
        const a = parsed.MasterFiles.GeneralLedgerAccounts.Account.find((x: { AccountID: string }) => x.AccountID === code);
        return [a.OpeningDebitBalance ?? `-${a.OpeningCreditBalance}`, a.ClosingDebitBalance ?? `-${a.ClosingCreditBalance}`];
      };
      expect(balance('1200')).toEqual(['40000.00', '45000.00']);
      expect(balance('1500')).toEqual(['5000.00', '0.00']);
      expect(balance('1920')).toEqual(['60000.00', '56000.00']);
      expect(balance('2000')).toEqual(['-30000.00', '-30000.00']);
      expect(balance('2050')).toEqual(['-55000.00', '-55000.00']);
      expect(balance('2220')).toEqual(['-20000.00', '-20000.00']);
      const gl = parsed.GeneralLedgerEntries;
      const ids = gl.Journal.Transaction.map((x: { TransactionID: string }) => x.TransactionID);
      expect(ids).not.toContain(String(openingSeq));
      expect(ids).toHaveLength(4);
      expect([gl.NumberOfEntries, gl.TotalDebit, gl.TotalCredit]).toEqual(['4', '21000.00', '21000.00']);
      expect(parsed.MasterFiles.Customers.Customer[0].BalanceAccount).toEqual([{ AccountID: '1500', OpeningDebitBalance: '5000.00', ClosingDebitBalance: '0.00' }]);
    });

    it('yearly accounts of the year: the previous year\'s balance sheet is the opening balance; "Egenkapital ved årets begynnelse" the opening equity; the fixed assets owned on 1 January are the incoming book value, not additions', async () => {
      const res = await app.http('GET', `/api/v2/yearly-accounts/preview?client_account_id=${t.account.id}&reporting_year=2025`, { token: t.user.token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const balance = Object.fromEntries(res.body.balance_sheet.map((l: { key: string; amount: string; previous_amount: string }) => [l.key, [l.amount, l.previous_amount]]));
      expect(balance).toMatchObject({
        anleggsmidler: ['45000.00', '40000.00'],
        omlopsmidler: ['56000.00', '65000.00'],
        sum_eiendeler: ['101000.00', '105000.00'],
        egenkapital: ['81000.00', '85000.00'],
        langsiktig_gjeld: ['20000.00', '20000.00'],
        sum_egenkapital_og_gjeld: ['101000.00', '105000.00'],
      });
      const note = (key: string) => res.body.notes.find((n: { key: string }) => n.key === key);
      expect(note('equity').body.rows).toEqual([
        ['Egenkapital ved årets begynnelse', '85 000,00'],
        ['Årets resultat', '-4 000,00'],
        ['Avsatt utbytte', '0,00'],
        ['Andre endringer', '0,00'],
        ['Egenkapital ved årets slutt', '81 000,00'],
      ]);
      expect(note('fixed_assets').body.rows).toEqual([
        ['Transportmidler, inventar og maskiner', '40 000,00', '10 000,00', '0,00', '5 000,00', '45 000,00'],
        ['Sum', '40 000,00', '10 000,00', '0,00', '5 000,00', '45 000,00'],
      ]);
      expect(note('receivables').body.rows[0]).toEqual(['Kundefordringer', '0,00', '5 000,00']);
      const income = Object.fromEntries(res.body.income_statement.map((l: { key: string; amount: string }) => [l.key, l.amount]));
      expect(income).toMatchObject({ salgsinntekt: '1000.00', avskrivning: '5000.00', arsresultat: '-4000.00' });
    });

    it('"a reversal of a cancelled opening entry carries the flag": with include_cancelled both count, without both are left out, and every period still balances', async () => {
      const own = await app.seed.tenant();
      const first = await posted(own, { is_opening_balance: true, lines: lines('2025-01-01', OPENING) });
      const cancel = await app.http('PATCH', `/api/v2/journal-entries/${first.id}`, { token: own.user.token, body: { cancelled: 'Y', cancellation_reason: 'Feil år' } });
      expect(cancel.status).toBe(200);
      const reversalDate = (await app.http('GET', `/api/v2/journal-entries/${cancel.body.cancellation_entry_id}`, { token: own.user.token })).body.lines[0].posting_date;
      const tb = async (qs: string) => byCode((await app.http('GET', `/api/v2/reports/trial-balance?client_account_id=${own.account.id}&${qs}`, { token: own.user.token })).body);
      // the year opens with the cancelled opening balance; its reversal, posted today, is the year's movement
      const year = await tb(`date_from=2025-01-01&date_to=${reversalDate}`);
      expect(figures(year['1920'])).toEqual(['60000.00', '0.00', '60000.00', '0.00']);
      const live = await tb(`date_from=2025-01-01&date_to=${reversalDate}&include_cancelled=false`);
      expect(live['1920']).toBeUndefined();
      // a period that starts on the day of the reversal opens with both: they net out
      const fromReversal = await tb(`date_from=${reversalDate}&date_to=${reversalDate}`);
      expect(fromReversal['1920']).toBeUndefined();
    });
  });
});
