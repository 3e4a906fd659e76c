import { readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { ensureReferenceData } from '../src/db/reference-data.ts';
import { createSeed, randomOrganizationNumber } from '../test/support/seed.ts';
import { scratchPostgres } from './scratch-db.ts';
import { median, startServer, type ServerProcess } from './server-process.ts';

/**
 * npm run bench -- reports [--lines N] [--runs N]: the reports on a large ledger, PostgreSQL only.
 * A scratch database gets one client account with the default chart (through the services) and
 * N posted journal lines (default 1,000,000: N/5 balanced entries of 5 lines over 24 months, ~65
 * accounts, VAT codes on the income and some expense lines, business partners on 1500/2400,
 * projects and departments), loaded with set-based INSERT … SELECT FROM generate_series (pg-copy-
 * streams is not installed, and this is as fast). Entries are numbered 1..N/5 in date order, but
 * their entry_hash is a placeholder (the schema requires one on a posted entry): the bench ledger
 * does not verify as a chain. Then, each a few runs (median) next to a baseline measured in the same
 * run: the raw SQL aggregate behind a trial balance and a balance sheet (plain pg) against the
 * service functions in process and the routes over HTTP (a server process, dist/server.mjs); a
 * general-ledger page (1 and a middle one); the trial balance as XLSX and PDF; the SAF-T export of
 * every line (GET /reports/data-export, Accept text/xml) streamed to a byte counter, with the
 * server's peak RSS during it. A route answering 404 is reported as not available.
 */
const MB = 1024 * 1024;
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

type Row = { what: string; ms: number | null; baseline?: number | null; goal?: string; ok?: boolean | null; note?: string };

export async function reports(args: string[] = []): Promise<void> {
  const flag = (name: string, fallback: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
  const lines = flag('--lines', 1_000_000);
  const runs = flag('--runs', 5);
  const scratch = await scratchPostgres('reports');
  if (!scratch) {
    console.log('reports: needs PostgreSQL (BENCH_POSTGRES_URL); skipped');
    return;
  }
  console.log(`reports: ${lines.toLocaleString('en')} posted journal lines in a scratch PostgreSQL database, ${runs} runs per figure (median)`);
  const client = new pg.Client({ connectionString: scratch.url });
  let server: ServerProcess | undefined;
  try {
    const db = await openDatabase({ databaseUrl: scratch.url });
    await applyMigrations(db.adapterFactory);
    await ensureReferenceData(db.prisma);
    const seed = createSeed(db.prisma);
    const tenant = await seed.tenant();
    const ctx = seed.contextOf(tenant.user);
    await client.connect();
    const accountId = tenant.account.id;
    // a SAF-T file is named by, and identifies the company by, its organisation number
    await db.prisma.clientAccount.update({ where: { id: accountId }, data: { organizationNumber: randomOrganizationNumber() } });
    const loaded = await load(client, accountId, tenant.user.id, lines);
    console.log(`  loaded ${loaded.entries.toLocaleString('en')} entries / ${lines.toLocaleString('en')} lines in ${(loaded.ms / 1000).toFixed(1)} s (set-based INSERT … SELECT, then ANALYZE); entry_hash is a placeholder: the bench ledger is not a verifiable chain`);

    const { from, to, mid } = loaded;
    const rows: Row[] = [];
    const time = async (n: number, f: () => Promise<unknown>) => {
      await f(); // warm
      const xs: number[] = [];
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await f();
        xs.push(performance.now() - t);
      }
      return median(xs);
    };

    // the raw aggregates: what a trial balance and a balance sheet must read at least
    const rawTrial = () =>
      client.query(
        `SELECT l.account_id, SUM(CASE WHEN l.posting_date < $2 THEN l.debit - l.credit ELSE 0 END) AS before,
                SUM(CASE WHEN l.posting_date >= $2 THEN l.debit ELSE 0 END) AS debit, SUM(CASE WHEN l.posting_date >= $2 THEN l.credit ELSE 0 END) AS credit
           FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id
          WHERE l.client_account_id = $1 AND NOT e.is_draft AND l.posting_date <= $3 GROUP BY l.account_id`,
        [accountId, mid, to],
      );
    const rawPeriod = () =>
      client.query(
        `SELECT l.account_id, SUM(l.debit), SUM(l.credit) FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id
          WHERE l.client_account_id = $1 AND NOT e.is_draft AND l.posting_date BETWEEN $2 AND $3 GROUP BY l.account_id`,
        [accountId, mid, to],
      );
    const rawBalance = () =>
      client.query(
        `SELECT l.account_id, SUM(l.debit - l.credit) FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id
          WHERE l.client_account_id = $1 AND NOT e.is_draft AND l.posting_date <= $2 GROUP BY l.account_id`,
        [accountId, to],
      );
    const baseTrial = await time(runs, rawTrial);
    const basePeriod = await time(runs, rawPeriod);
    const baseBalance = await time(runs, rawBalance);
    rows.push({ what: 'raw SQL: GROUP BY account, lines of the period (the 2nd year)', ms: basePeriod });
    rows.push({ what: 'raw SQL: trial balance aggregate (incoming + period, lines to date_to)', ms: baseTrial });
    rows.push({ what: 'raw SQL: balance aggregate (all lines to report_date)', ms: baseBalance });

    // the services in process
    const service = await import('../src/modules/reports/reports.service.ts').catch(() => null);
    const dateOf = (s: string) => new Date(`${s}T00:00:00.000Z`);
    if (service) {
      const tb = await time(runs, () => service.trialBalance(ctx, { clientAccountId: accountId, dateFrom: dateOf(mid), dateTo: dateOf(to) }));
      rows.push({ what: 'service trialBalance (2nd year)', ms: tb, baseline: baseTrial, goal: '≤ 1.2×', ok: tb <= baseTrial * 1.2 });
      const bs = await time(runs, () => service.balanceSheet(ctx, { clientAccountId: accountId, reportDate: dateOf(to) }));
      rows.push({ what: 'service balanceSheet (at the end)', ms: bs, baseline: baseBalance, goal: '≤ 1.2×', ok: bs <= baseBalance * 1.2 });
    } else rows.push({ what: 'service trialBalance / balanceSheet', ms: null, note: 'not available (no reports.service.ts)' });
    await db.close();

    // the routes, over HTTP, on a server process
    server = await startServer({ DATABASE_URL: scratch.url, API_RATE_LIMIT: 'off' });
    const base = `${server.base}/api/v2/reports`;
    const get = async (path: string, accept = 'application/json') => {
      const res = await fetch(`${base}${path}${path.includes('?') ? '&' : '?'}client_account_id=${accountId}`, { headers: { authorization: `Bearer ${tenant.user.token}`, accept } });
      const body = Buffer.from(await res.arrayBuffer());
      return { status: res.status, body };
    };
    /** median of `runs` timed GETs, or why not: a 404 is "not available", anything else but 200 an error */
    const route = async (what: string, path: string, accept?: string, baseline?: number, goal?: string, limit?: number) => {
      const first = await get(path, accept);
      if (first.status !== 200) {
        rows.push({ what, ms: null, note: first.status === 404 ? 'not available (404)' : `answered ${first.status}: ${first.body.toString('utf8').slice(0, 120)}` });
        return null;
      }
      const ms = await time(runs, () => get(path, accept));
      const ok = baseline !== undefined ? ms <= baseline * 1.2 : limit !== undefined ? ms <= limit : undefined;
      rows.push({ what, ms, baseline, goal, ok, note: `${(first.body.length / 1024).toFixed(0)} KB` });
      return first.body;
    };
    await route('GET /trial-balance (JSON)', `/trial-balance?date_from=${mid}&date_to=${to}`, undefined, baseTrial, '≤ 1.2×');
    await route('GET /balance-sheet (JSON)', `/balance-sheet?report_date=${to}`, undefined, baseBalance, '≤ 1.2×');
    const page1 = await route('GET /general-ledger page 1, per_page 100', `/general-ledger?date_from=${from}&date_to=${to}&page=1&per_page=100`, undefined, undefined, '≤ 1000 ms', 1000);
    if (page1) {
      const pages = Number((JSON.parse(page1.toString('utf8')) as { meta?: { pages?: number } }).meta?.pages ?? 1);
      const middle = Math.max(1, Math.floor(pages / 2));
      await route(`GET /general-ledger page ${middle} of ${pages}`, `/general-ledger?date_from=${from}&date_to=${to}&page=${middle}&per_page=100`, undefined, undefined, '≤ 1000 ms', 1000);
    }
    await route('GET /trial-balance as XLSX', `/trial-balance?date_from=${mid}&date_to=${to}`, XLSX, undefined, '≤ 2000 ms', 2000);
    await route('GET /trial-balance as PDF', `/trial-balance?date_from=${mid}&date_to=${to}`, 'application/pdf', undefined, '≤ 2000 ms', 2000);
    // the export on a fresh server process: its peak RSS is then the export's own, not the heap that
    // the reports measured before it left behind (V8 does not give that back)
    await server.stop();
    server = await startServer({ DATABASE_URL: scratch.url, API_RATE_LIMIT: 'off' });
    await saftExport(server, `${server.base}/api/v2/reports/data-export?client_account_id=${accountId}&date_from=${from}&date_to=${to}`, tenant.user.token, rows);

    console.log(`  ${'measurement'.padEnd(72)} ${'median'.padStart(10)} ${'baseline'.padStart(10)} ${'ratio'.padStart(7)}  ${'goal'.padEnd(22)} result`);
    for (const r of rows) {
      const ms = r.ms === null ? '—' : `${r.ms.toFixed(1)} ms`;
      const b = r.baseline ? `${r.baseline.toFixed(1)} ms` : '';
      const ratio = r.ms !== null && r.baseline ? `${(r.ms / r.baseline).toFixed(2)}×` : '';
      const verdict = r.ok === undefined || r.ok === null ? '' : r.ok ? 'ok' : 'MISSED';
      console.log(`  ${r.what.padEnd(72)} ${ms.padStart(10)} ${b.padStart(10)} ${ratio.padStart(7)}  ${(r.goal ?? '').padEnd(22)} ${[verdict, r.note].filter(Boolean).join('  ')}`);
    }
  } finally {
    await server?.stop();
    await client.end().catch(() => undefined);
    await scratch.drop();
  }
}

/**
 * The SAF-T export of every line, streamed to a byte counter: its time and the server process's
 * peak RSS during it (VmHWM after resetting it through /proc/<pid>/clear_refs; sampled VmRSS when
 * the reset is not allowed). Goals: ≤ 60 s and ≤ 512 MB.
 */
async function saftExport(server: ServerProcess, url: string, token: string, rows: Row[]) {
  const status = (key: string) => Number(/\d+/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(key)) ?? '')?.[0] ?? 0) / 1024;
  let reset = true;
  try {
    writeFileSync(`/proc/${server.pid}/clear_refs`, '5');
  } catch {
    reset = false;
  }
  const atStart = status('VmRSS:');
  let sampled = atStart;
  const sampler = setInterval(() => (sampled = Math.max(sampled, status('VmRSS:'))), 50);
  const started = performance.now();
  try {
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/xml' } });
    if (res.status !== 200) {
      const text = await res.text();
      rows.push({ what: 'GET /data-export (SAF-T XML, all lines)', ms: null, note: res.status === 404 ? 'not available (404)' : `answered ${res.status}: ${text.slice(0, 120)}` });
      return;
    }
    let bytes = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
    const ms = performance.now() - started;
    const peak = reset ? status('VmHWM:') : sampled;
    rows.push({ what: 'GET /data-export (SAF-T XML, all lines): time', ms, goal: '≤ 60 s', ok: ms <= 60_000, note: `${(bytes / MB).toFixed(0)} MB of XML` });
    rows.push({ what: `  server peak RSS during it (${reset ? 'VmHWM' : 'sampled VmRSS'})`, ms: null, goal: '≤ 512 MB', ok: peak <= 512, note: `${peak.toFixed(0)} MB (${atStart.toFixed(0)} MB when it started)` });
  } finally {
    clearInterval(sampler);
  }
}

/**
 * N/5 entries of 5 lines, in date order over the 24 months before this one, in batches of 20,000
 * entries: (1) a receipt or receivable (1500 with a customer, 1920, 1900, 1950) = (2) income with
 * its VAT code + (3) the VAT; (4) a cost or asset with a department (every 2nd) and a project (every
 * 5th), some with VAT code 1, against (5) payables (2400 with a supplier), the bank or a liability.
 */
async function load(client: pg.Client, accountId: number, userId: number, lineCount: number) {
  const started = performance.now();
  const entries = Math.floor(lineCount / 5);
  const ids = new Map<string, number>(
    (await client.query<{ code: string; id: number }>('SELECT code, id FROM accounts WHERE client_account_id = $1', [accountId])).rows.map((r) => [r.code, r.id]),
  );
  const tax = new Map<string, number>(
    (await client.query<{ code: string; id: number }>('SELECT code, id FROM tax_codes WHERE client_account_id = $1', [accountId])).rows.map((r) => [r.code, r.id]),
  );
  const acc = (codes: string[]) => codes.map((c) => {
    const id = ids.get(c);
    if (!id) throw new Error(`bench: account ${c} is not in the default chart`);
    return id;
  });
  const receipts = acc(['1500', '1500', '1920', '1900', '1950']);
  const income: [string, string, string][] = [
    ['3000', '3', '2700'], ['3030', '31', '2701'], ['3033', '33', '2702'], ['3100', '5', '2700'], ['3150', '52', '2700'], ['3200', '6', '2700'],
    ['3600', '6', '2700'], ['3700', '3', '2700'], ['3900', '3', '2700'], ['3400', '', '2700'], ['8040', '', '2700'], ['8070', '', '2700'],
  ];
  const costs = acc([
    '4000', '4300', '4500', '5000', '5090', '5330', '5400', '5420', '5900', '6000', '6100', '6300', '6340', '6400', '6420', '6500', '6540', '6620', '6700',
    '6705', '6790', '6800', '6860', '6900', '7000', '7020', '7040', '7100', '7140', '7320', '7350', '7400', '7500', '7600', '7770', '7790', '8150', '8170',
    '1200', '1250', '1280', '1400', '1700', '1749',
  ]);
  const payments = acc(['2400', '2400', '1920', '2600', '2770', '2940', '2960', '2990', '2380']);
  // partners, projects and departments for the dimensions
  const q = (sql: string, params: unknown[] = []) => client.query(sql, params);
  const customers = (await q(`INSERT INTO business_partners (client_account_id, name, is_customer, updated_at) SELECT $1, 'Kunde ' || g, true, now() FROM generate_series(1, 300) g RETURNING id`, [accountId])).rows.map((r) => r.id as number);
  const suppliers = (await q(`INSERT INTO business_partners (client_account_id, name, is_supplier, updated_at) SELECT $1, 'Leverandør ' || g, true, now() FROM generate_series(1, 100) g RETURNING id`, [accountId])).rows.map((r) => r.id as number);
  const projects = (await q(`INSERT INTO projects (client_account_id, sequence_number, name, updated_at) SELECT $1, g, 'Prosjekt ' || g, now() FROM generate_series(1, 20) g RETURNING id`, [accountId])).rows.map((r) => r.id as number);
  const departments = (await q(`INSERT INTO departments (client_account_id, sequence_number, name, updated_at) SELECT $1, g, 'Avdeling ' || g, now() FROM generate_series(1, 8) g RETURNING id`, [accountId])).rows.map((r) => r.id as number);

  const today = new Date();
  const firstDay = new Date(Date.UTC(today.getUTCFullYear() - 2, today.getUTCMonth(), 1));
  const lastDay = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 0));
  const days = Math.round((lastDay.getTime() - firstDay.getTime()) / 86_400_000) + 1;
  const iso = (d: Date) => d.toISOString().slice(0, 10);
  const BATCH = 20_000;
  for (let lo = 1; lo <= entries; lo += BATCH) {
    const hi = Math.min(entries, lo + BATCH - 1);
    // entries: numbered in date order; the day of entry g is (g − 1) · days / entries after firstDay
    await q(
      `INSERT INTO journal_entries (client_account_id, sequence_number, description, is_draft, posted_at, posted_by_id, entry_hash, created_by_id, updated_by_id, updated_at)
       SELECT $1, g, 'Bilag ' || g, false, now(), $2, encode(sha256(convert_to('bench|' || g, 'UTF8')), 'hex'), $2, $2, now()
         FROM generate_series($3::int, $4::int) g`,
      [accountId, userId, lo, hi],
    );
    await q(
      `WITH e AS (
         SELECT id, sequence_number AS g, $2::date + ((sequence_number - 1)::bigint * $3 / $4)::int AS d,
                (100 + (sequence_number::bigint * 7919) % 49900)::numeric + (sequence_number % 100) / 100.0 AS a,
                (50 + (sequence_number::bigint * 104729) % 19950)::numeric + (sequence_number % 97) / 100.0 AS c
           FROM journal_entries WHERE client_account_id = $1 AND sequence_number BETWEEN $5 AND $6
       ), v AS (
         SELECT e.*, ($7::int[])[1 + g % cardinality($7::int[])] AS receipt, 1 + g % cardinality($8::int[]) AS inc,
                ($11::int[])[1 + (g / 3) % cardinality($11::int[])] AS cost, ($12::int[])[1 + (g / 7) % cardinality($12::int[])] AS pay,
                round(a * 0.25, 2) AS vat
           FROM e
       )
       INSERT INTO journal_entry_lines (journal_entry_id, client_account_id, line_id, posting_date, account_id, debit, credit, debit_fc, credit_fc, currency_code, exchange_rate,
                                        tax_code_id, tax_base_amount, tax_amount, business_partner_id, project_id, department_id)
       SELECT v.id, $1, x.line_id, v.d, x.account_id, x.debit, x.credit, x.debit, x.credit, 'NOK', 1, x.tax_code_id, x.base, x.tax, x.partner, x.project, x.department
         FROM v CROSS JOIN LATERAL (VALUES
           (1, v.receipt, v.a + v.vat, 0::numeric, NULL::int, NULL::numeric, NULL::numeric,
               CASE WHEN v.receipt = ($7::int[])[1] THEN ($13::int[])[1 + v.g % cardinality($13::int[])] END, NULL::int, NULL::int),
           (2, ($8::int[])[v.inc], 0, v.a, ($9::int[])[v.inc], CASE WHEN ($9::int[])[v.inc] IS NOT NULL THEN v.a END, CASE WHEN ($9::int[])[v.inc] IS NOT NULL THEN v.vat END, NULL, NULL, NULL),
           (3, ($10::int[])[v.inc], 0, v.vat, NULL, NULL, NULL, NULL, NULL, NULL),
           (4, v.cost, v.c, 0, CASE WHEN v.g % 3 = 0 THEN $15::int END, CASE WHEN v.g % 3 = 0 THEN v.c END, CASE WHEN v.g % 3 = 0 THEN round(v.c * 0.25, 2) END, NULL,
               CASE WHEN v.g % 5 = 0 THEN ($16::int[])[1 + v.g % cardinality($16::int[])] END, CASE WHEN v.g % 2 = 0 THEN ($17::int[])[1 + v.g % cardinality($17::int[])] END),
           (5, v.pay, 0, v.c, NULL, NULL, NULL, CASE WHEN v.pay = ($12::int[])[1] THEN ($14::int[])[1 + v.g % cardinality($14::int[])] END, NULL, NULL)
         ) AS x(line_id, account_id, debit, credit, tax_code_id, base, tax, partner, project, department)`,
      [
        accountId, iso(firstDay), days, entries, lo, hi,
        receipts, acc(income.map((i) => i[0])), income.map((i) => (i[1] ? tax.get(i[1]) ?? null : null)), acc(income.map((i) => i[2])),
        costs, payments, customers, suppliers, tax.get('1'), projects, departments,
      ],
    );
  }
  const last = await q(`SELECT entry_hash FROM journal_entries WHERE client_account_id = $1 AND sequence_number = $2`, [accountId, entries]);
  await q(
    `INSERT INTO ledger_chains (client_account_id, last_number, last_hash) VALUES ($1, $2, $3)
     ON CONFLICT (client_account_id) DO UPDATE SET last_number = EXCLUDED.last_number, last_hash = EXCLUDED.last_hash`,
    [accountId, entries, last.rows[0].entry_hash],
  );
  await q('ANALYZE journal_entries');
  await q('ANALYZE journal_entry_lines');
  const check = await q(
    `SELECT COUNT(*)::int AS n, SUM(debit)::text AS d, SUM(credit)::text AS c FROM journal_entry_lines WHERE client_account_id = $1`,
    [accountId],
  );
  const { n, d, c } = check.rows[0] as { n: number; d: string; c: string };
  if (n !== entries * 5 || d !== c) throw new Error(`bench ledger is wrong: ${n} lines, debit ${d}, credit ${c}`);
  const mid = new Date(Date.UTC(today.getUTCFullYear() - 1, today.getUTCMonth(), 1));
  return { entries, ms: performance.now() - started, from: iso(firstDay), to: iso(lastDay), mid: iso(mid) };
}
