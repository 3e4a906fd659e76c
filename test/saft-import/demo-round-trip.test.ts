import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { seedDemo } from '../../src/admin/seed-demo.ts';
import { osloToday } from '../../src/modules/journal-entries/journal-entries.rules.ts';
import { verifyLedger } from '../../src/modules/journal-entries/ledger-chain.ts';
import { checkSaft } from '../../src/modules/reports/saft/saft.checks.ts';
import { formatDate } from '../../src/shared/scalars.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { openOwnDatabase } from '../support/own-database.ts';
import { randomOrganizationNumber } from '../support/seed.ts';

// Issue 33, "Done when": "A demo export imported into a fresh account reproduces its books exactly".
// The demo company (seedDemo: the previous year closed and locked, opened by 'Inngående balanse' on
// 1 January, and this year to date) exported through GET /reports/data-export and imported through
// POST /saft-imports into a fresh client account, the way an accounting firm moving a client does it:
// either one file for the whole span, or one file per year imported in order (the second year's
// file carries the first year's closing balances as its opening balances, already in the books).
// Then the books are compared over the API, account by account, to the øre.
//
// On both databases, each time on a database of its own (openOwnDatabase: on PostgreSQL a scratch
// database): the demo has fixed names (its firm, company, login and organisation number), and on the
// PostgreSQL database a run shares, the admin CLI's test seeds the same demo concurrently.
describe.each(targets())('SAF-T round trip of the demo company (%s)', (target) => {
  let db: Database;
  let own: Awaited<ReturnType<typeof openOwnDatabase>> | undefined;
  let app: TestApp;
  let demo: { account: { id: number }; user: { token: string } };
  const today = formatDate(osloToday());
  const year = Number(today.slice(0, 4));
  const prev = year - 1;
  const spans = {
    previous: [`${prev}-01-01`, `${prev}-12-31`],
    current: [`${year}-01-01`, today],
    both: [`${prev}-01-01`, today],
  } as const;

  beforeAll(async () => {
    own = await openOwnDatabase(target, 'saft_demo');
    db = own.db;
    const seeded = await seedDemo(db.prisma);
    expect(seeded.created).toBe(true);
    app = await startTestApp(target, { database: db, jobs: { queues: ['saft-imports.run'] } });
    demo = { account: { id: seeded.company.id }, user: { token: await app.seed.token(seeded.user.id, 'read write') } };
  }, 400_000); // migrating a PostgreSQL database and seeding a year and a half of books, on a loaded machine
  afterAll(async () => {
    await app?.close();
    await own?.close();
  });

  type Who = typeof demo;
  const get = async (who: Who, path: string, accept?: string) => {
    const res = await app.http('GET', `/api/v2${path}`, { token: who.user.token, headers: accept ? { accept } : undefined });
    expect(res.status, `${path}: ${res.text?.slice(0, 500)}`).toBe(200);
    return res;
  };
  const exportOf = async (who: Who, [from, to]: readonly [string, string]) => {
    const xml = (await get(who, `/reports/data-export?client_account_id=${who.account.id}&date_from=${from}&date_to=${to}`, 'text/xml')).text;
    expect(checkSaft(xml).problems).toEqual([]);
    return xml;
  };

  /** a fresh client account (organisation numbers are unique: another one, hence allow_other_organization), its manager's token */
  const freshAccount = async (): Promise<Who> => {
    const t = await app.seed.tenant();
    await db.prisma.clientAccount.update({ where: { id: t.account.id }, data: { organizationNumber: randomOrganizationNumber(), vatLiable: true } });
    return t;
  };
  /** POST /saft-imports, multipart */
  const upload = async (who: Who, xml: string) => {
    const form = new FormData();
    form.append('client_account_id', String(who.account.id));
    form.append('allow_other_organization', 'true');
    form.append('file', new Blob([new TextEncoder().encode(xml)], { type: 'application/xml' }), 'demo.xml');
    const res = await fetch(`${app.url}/api/v2/saft-imports`, { method: 'POST', headers: { authorization: `Bearer ${who.user.token}` }, body: form });
    return { status: res.status, body: await res.json() };
  };
  /** uploads the file and waits for its import to be COMPLETED */
  const importFile = async (who: Who, xml: string) => {
    const { status, body } = await upload(who, xml);
    expect(status, JSON.stringify(body)).toBe(202);
    for (let i = 0; i < 1200; i++) {
      const done = (await get(who, `/saft-imports/${body.id}`)).body;
      if (done.status === 'COMPLETED' || done.status === 'FAILED') {
        expect(done.errors, JSON.stringify(done.errors)).toEqual([]);
        expect(done.status).toBe('COMPLETED');
        return done;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`SAF-T import ${body.id} did not finish`);
  };

  // ── the books, as the reports show them ─────────────────────────────────────────────────────────
  const trialBalance = async (who: Who, [from, to]: readonly [string, string]) => {
    const rows = (await get(who, `/reports/trial-balance?client_account_id=${who.account.id}&date_from=${from}&date_to=${to}`)).body as Record<string, string>[];
    return rows.map((r) => [r.account_code, r.incoming_balance, r.debit, r.credit, r.outgoing_balance].join(' ')).sort();
  };
  /** the trial balance per dimension value (named: the ids are the importing account's own) */
  const trialBalanceBy = async (who: Who, [from, to]: readonly [string, string], dimension: string) => {
    const rows = (await get(who, `/reports/trial-balance?client_account_id=${who.account.id}&date_from=${from}&date_to=${to}&group_by_dimension=${dimension}`)).body as Record<string, string>[];
    return rows.map((r) => [r.account_code, r.relation_type, r.relation_name, r.incoming_balance, r.debit, r.credit, r.outgoing_balance].join(' ')).sort();
  };
  const balanceSheet = async (who: Who, day: string) => {
    const rows = (await get(who, `/reports/balance-sheet?client_account_id=${who.account.id}&report_date=${day}`)).body as Record<string, string | number>[];
    return rows.map((r) => `${r.account_code} ${r.balance}`).sort();
  };
  const incomeStatement = async (who: Who, [from, to]: readonly [string, string]) => {
    const rows = (await get(who, `/reports/income-statement?client_account_id=${who.account.id}&date_from=${from}&date_to=${to}`)).body as Record<string, unknown>[];
    return rows.map((r) => `${r.account_code} ${JSON.stringify(r.period_debit_movements)}`).sort();
  };
  /** every general-ledger line of the span, per account: date, debit, credit (sorted within the account), and the count per account */
  const generalLedger = async (who: Who, [from, to]: readonly [string, string]) => {
    const lines: string[] = [];
    for (let page = 1; ; page++) {
      const res = (await get(who, `/reports/general-ledger?client_account_id=${who.account.id}&date_from=${from}&date_to=${to}&per_page=1000&page=${page}`)).body;
      for (const l of res.data as Record<string, string>[]) lines.push(`${l.account_code} ${l.posting_date} ${l.debit} ${l.credit}`);
      if (page >= res.meta.pages) break;
    }
    const perAccount = new Map<string, number>();
    for (const l of lines) perAccount.set(l.split(' ')[0]!, (perAccount.get(l.split(' ')[0]!) ?? 0) + 1);
    return { lines: lines.sort(), perAccount: [...perAccount].sort() };
  };
  const postedEntries = async (who: Who) => ({
    posted: await db.prisma.journalEntry.count({ where: { clientAccountId: who.account.id, isDraft: false } }),
    openingBalances: await db.prisma.journalEntry.count({ where: { clientAccountId: who.account.id, isDraft: false, isOpeningBalance: true } }),
  });

  // ── a SAF-T file, read for comparison ───────────────────────────────────────────────────────────
  const totals = (xml: string) => ['NumberOfEntries', 'TotalDebit', 'TotalCredit'].map((e) => new RegExp(`<${e}>([^<]*)</${e}>`).exec(xml)?.[1]);
  const parser = new XMLParser({ parseTagValue: false, isArray: (n) => ['Account', 'Customer', 'Supplier', 'Transaction', 'Line', 'Analysis', 'AnalysisTypeTableEntry', 'TaxInformation', 'BalanceAccount'].includes(n) });
  /**
   * The file's accounts with their opening and closing balances, and its transactions as their
   * content: what is ours to keep. Left out: the ids the importing system gives (TransactionID,
   * CustomerID/SupplierID, AnalysisID: replaced by the party's and the analysis' names), the dates
   * of the act of posting (SystemEntryDate, GLPostingDate, ModificationDate), SourceID (the user)
   * and VoucherType (the related document's type: the import relates no documents).
   */
  const contentOf = (xml: string) => {
    const f = parser.parse(xml).AuditFile;
    const m = f.MasterFiles;
    const name = new Map<string, string>();
    for (const c of m.Customers?.Customer ?? []) name.set(`C${c.CustomerID}`, c.Name);
    for (const s of m.Suppliers?.Supplier ?? []) name.set(`S${s.SupplierID}`, s.Name);
    for (const a of m.AnalysisTypeTable?.AnalysisTypeTableEntry ?? []) name.set(`${a.AnalysisType}/${a.AnalysisID}`, a.AnalysisIDDescription);
    const accounts = (m.GeneralLedgerAccounts.Account as Record<string, string>[]).map((a) =>
      [a.AccountID, a.OpeningDebitBalance ?? '', a.OpeningCreditBalance ?? '', a.ClosingDebitBalance ?? '', a.ClosingCreditBalance ?? ''].join(' '),
    );
    const transactions = ((f.GeneralLedgerEntries?.Journal?.Transaction ?? []) as Record<string, any>[]).map((t) => ({
      period: `${t.PeriodYear}-${t.Period}`,
      date: t.TransactionDate,
      description: t.Description,
      lines: (t.Line as Record<string, any>[]).map((l) => ({
        account: l.AccountID,
        date: l.ValueDate,
        description: l.Description,
        debit: l.DebitAmount,
        credit: l.CreditAmount,
        customer: l.CustomerID && name.get(`C${l.CustomerID}`),
        supplier: l.SupplierID && name.get(`S${l.SupplierID}`),
        analysis: (l.Analysis ?? []).map((a: Record<string, string>) => `${a.AnalysisType} ${name.get(`${a.AnalysisType}/${a.AnalysisID}`)} ${JSON.stringify(a.AnalysisAmount ?? null)}`),
        tax: l.TaxInformation,
        quantity: l.Quantity,
      })),
    }));
    return { accounts, transactions };
  };

  /**
   * the books of `copy` equal those of the demo, year by year and over both years; with `inOrder`
   * the transactions of every file too come in the same order (sequence numbers: the order of
   * posting). Year by year they cannot over both years: the demo closed the previous year (its result
   * to equity, dated 31 December) after posting January's first entries, and the copy posts the
   * files in order: the same books, posted in another order.
   */
  const expectSameBooks = async (copy: Who, inOrder: boolean) => {
    for (const span of [spans.previous, spans.current, spans.both]) {
      expect(await trialBalance(copy, span), `trial balance ${span}`).toEqual(await trialBalance(demo, span));
      expect(await incomeStatement(copy, span), `income statement ${span}`).toEqual(await incomeStatement(demo, span));
      for (const dimension of ['project', 'department', 'businesspartner']) {
        expect(await trialBalanceBy(copy, span, dimension), `trial balance by ${dimension} ${span}`).toEqual(await trialBalanceBy(demo, span, dimension));
      }
      const [mine, theirs] = [await generalLedger(copy, span), await generalLedger(demo, span)];
      expect(mine.perAccount, `general-ledger lines per account ${span}`).toEqual(theirs.perAccount);
      expect(mine.lines, `general ledger ${span}`).toEqual(theirs.lines);
      expect(theirs.lines.length).toBeGreaterThan(span === spans.current ? 100 : 500);
    }
    for (const day of [`${prev}-01-01`, `${prev}-12-31`, `${year}-01-01`, today]) {
      expect(await balanceSheet(copy, day), `balance sheet ${day}`).toEqual(await balanceSheet(demo, day));
    }
    expect(await postedEntries(copy)).toEqual(await postedEntries(demo));
    for (const span of [spans.previous, spans.current, spans.both]) {
      const [again, original] = [await exportOf(copy, span), await exportOf(demo, span)];
      expect(totals(again), `SAF-T totals ${span}`).toEqual(totals(original));
      const [a, o] = [contentOf(again), contentOf(original)];
      expect(a.accounts, `SAF-T accounts ${span}`).toEqual(o.accounts);
      expect(a.transactions.length).toBe(o.transactions.length);
      expect(o.transactions.length).toBeGreaterThan(span === spans.current ? 50 : 200);
      const ordered = (ts: typeof o.transactions) => (inOrder ? ts : ts.map((t) => JSON.stringify(t)).sort().map((t) => JSON.parse(t)));
      const [mine, theirs] = [ordered(a.transactions), ordered(o.transactions)];
      for (const [i, t] of theirs.entries()) expect(mine[i], `transaction ${i + 1} of ${span}`).toEqual(t);
    }
    expect(await verifyLedger(db.prisma, copy.account.id)).toMatchObject({ ok: true, brokenCount: 0 });
  };

  it('the demo exported as one file from 1 January of the previous year to today and imported into a fresh account "reproduces its books exactly"', async () => {
    const file = await exportOf(demo, spans.both);
    const copy = await freshAccount();
    const done = await importFile(copy, file);
    expect(done.summary).toMatchObject({ period: { start: spans.both[0], end: spans.both[1] }, opening_balance_entry_id: expect.any(Number), opening_balances_in_books: false });
    await expectSameBooks(copy, true);
  }, 600_000);

  it('the demo exported year by year and the files imported in order "reproduces its books exactly": the second file\'s opening balances are the first\'s closing balances, already in the books, and are not posted again', async () => {
    const [first, second] = [await exportOf(demo, spans.previous), await exportOf(demo, spans.current)];
    const copy = await freshAccount();
    const one = await importFile(copy, first);
    expect(one.summary).toMatchObject({ period: { start: spans.previous[0], end: spans.previous[1] }, opening_balance_entry_id: expect.any(Number) });
    const two = await importFile(copy, second);
    expect(two.summary).toMatchObject({ period: { start: spans.current[0], end: spans.current[1] }, opening_balance_entry_id: null, opening_balance_lines: 0, opening_balances_in_books: true });
    // the partners without an organisation number in both files are met again, not created twice
    const names = (await db.prisma.businessPartner.findMany({ where: { clientAccountId: copy.account.id }, select: { name: true } })).map((p) => p.name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    expect(two.summary.business_partners.matched).toBeGreaterThan(0);
    await expectSameBooks(copy, false);
  }, 600_000);

  it('a year\'s file whose opening balances are not the account\'s balances on its first day (the books it would continue differ) "writes nothing": 409 naming the accounts', async () => {
    const [first, second] = [await exportOf(demo, spans.previous), await exportOf(demo, spans.current)];
    const copy = await freshAccount();
    await importFile(copy, first);
    // one more expense in the previous year: 1920 and 6800 on 31 December differ from the demo's
    const last = `${prev}-12-31`;
    const posted = await app.http('POST', '/api/v2/journal-entries/batch', {
      token: copy.user.token,
      body: { client_account_id: copy.account.id, entries: [{ description: 'Glemt kvittering', lines: [{ posting_date: last, account_code: '6800', debit: 100, credit: 0 }, { posting_date: last, account_code: '1920', debit: 0, credit: 100 }] }] },
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    const before = { ...(await postedEntries(copy)), imports: await db.prisma.saftImport.count({ where: { clientAccountId: copy.account.id } }) };
    const { status, body } = await upload(copy, second);
    expect(status, JSON.stringify(body)).toBe(409);
    expect(body.error).toContain(`The file's opening balances on ${spans.current[0]} are not the balances of client account ${copy.account.id} on that day`);
    expect(body.error).toMatch(/1920: file -?\d+\.\d\d, account -?\d+\.\d\d/);
    expect({ ...(await postedEntries(copy)), imports: await db.prisma.saftImport.count({ where: { clientAccountId: copy.account.id } }) }).toEqual(before);
  }, 600_000);
});
