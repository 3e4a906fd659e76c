import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import readXlsxFile from 'read-excel-file/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { presentReport, type ReportName } from '../../src/modules/reports/reports.presenters.ts';
import { formatCell } from '../../src/modules/reports/render/format.ts';
import type { ReportTable } from '../../src/modules/reports/render/model.ts';
import { seedReportFixture, type ReportFixture } from './fixture.ts';
import { rowsFromWire } from './wire-rows.ts';

// spec 001 "Reports": "Output is chosen by the Accept header: application/json (default), Excel,
// text/html, application/pdf". Over HTTP on the fixture: each file, read back by a reader other than
// its writer, shows exactly the JSON answer's cells.
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const Q1 = 'date_from=2026-01-01&date_to=2026-03-31';
const REPORTS: [ReportName, string][] = [
  ['balance-sheet', 'report_date=2026-03-31'],
  ['income-statement', Q1],
  ['trial-balance', `${Q1}&include_zero_movement=false`],
  ['general-ledger', Q1],
  ['accounts-receivable', Q1],
];

describe.each(targets())('report formats over HTTP (%s)', (target) => {
  let app: TestApp;
  let f: ReportFixture;
  const workdir = mkdtempSync(join(tmpdir(), 'report-formats-'));

  beforeAll(async () => {
    app = await startTestApp(target);
    f = await seedReportFixture(app);
  });
  afterAll(async () => {
    rmSync(workdir, { recursive: true, force: true });
    await app?.close();
  });

  async function fetchAs(report: string, qs: string, accept: string) {
    const res = await fetch(`${app.url}/api/v2/reports/${report}?client_account_id=${f.t.account.id}&${qs}`, {
      headers: { authorization: `Bearer ${f.t.user.token}`, accept },
    });
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  }

  /** The JSON answer of a report: a ledger's every page (per_page 1000), the others' one array. */
  async function jsonOf(report: ReportName, qs: string, tenant = f.t): Promise<unknown> {
    const get = async (extra: string) => {
      const res = await fetch(`${app.url}/api/v2/reports/${report}?client_account_id=${tenant.account.id}&${qs}${extra}`, { headers: { authorization: `Bearer ${tenant.user.token}` } });
      expect(res.status).toBe(200);
      return res.json();
    };
    if (!['general-ledger', 'accounts-payable', 'accounts-receivable'].includes(report)) return get('');
    const pages = [await get('&per_page=1000&page=1')];
    while (pages.at(-1).meta.page < pages.at(-1).meta.pages) pages.push(await get(`&per_page=1000&page=${pages.length + 1}`));
    return pages;
  }

  /** The table the JSON answer presents (every page of a ledger): what every file must show. */
  async function expected(report: ReportName, qs: string, tenant = f.t): Promise<ReportTable> {
    const account = await app.seed.prisma.clientAccount.findUniqueOrThrow({ where: { id: tenant.account.id } });
    const query = Object.fromEntries(new URLSearchParams(`client_account_id=${tenant.account.id}&${qs}`));
    return presentReport(report, rowsFromWire(report, await jsonOf(report, qs, tenant)), { company: account, query });
  }

  it.each(REPORTS)('%s as Excel: every cell of the workbook equals the JSON’s, figures as numbers', async (report, qs) => {
    const table = await expected(report, qs);
    const { res, bytes } = await fetchAs(report, qs, XLSX);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(XLSX);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.xlsx"/);
    const [sheet] = await readXlsxFile(bytes);
    const money = table.columns.filter((c) => c.kind === 'money').map((c) => c.key);
    // a money cell holds the JSON's decimal text; the workbook its number
    const wanted = table.rows.flatMap((r) => money.map((k) => r.cells[k]).filter((v) => v !== null && v !== undefined).map(Number));
    expect(wanted.length).toBeGreaterThan(0);
    const got = sheet.data.flat().filter((v): v is number => typeof v === 'number');
    for (const v of wanted) expect(got).toContain(v);
    expect(got.length).toBeGreaterThanOrEqual(wanted.length);
  });

  it.each(REPORTS)('%s as PDF: pdftotext reads every figure and name of the JSON, æøå intact', async (report, qs) => {
    const table = await expected(report, qs);
    const { res, bytes } = await fetchAs(report, qs, 'application/pdf');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const file = join(workdir, `${report}.pdf`);
    writeFileSync(file, bytes);
    const { stdout } = await promisify(execFile)('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-']);
    const text = stdout.replace(/[\s\u00a0]+/g, ' ');
    for (const row of table.rows) {
      for (const column of table.columns) {
        const v = row.cells[column.key];
        if (v === null || v === undefined || v === '') continue;
        if (column.kind === 'text') continue; // long names may be cut with an ellipsis to fit the column
        expect(text).toContain(formatCell(column.kind, v).replace(/[\s\u00a0]+/g, ' '));
      }
    }
    expect(text).toContain(table.title);
  });

  it.each(REPORTS)('%s as HTML: a page showing every cell of the JSON, with its own style policy', async (report, qs) => {
    const table = await expected(report, qs);
    const { res, bytes } = await fetchAs(report, qs, 'text/html');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toMatch(/style-src 'sha256-/);
    const html = bytes.toString('utf8').replace(/&amp;/g, '&').replace(/[\s\u00a0]+/g, ' ');
    for (const row of table.rows) {
      for (const column of table.columns) {
        const v = row.cells[column.key];
        if (v === null || v === undefined || v === '') continue;
        expect(html).toContain(formatCell(column.kind, v).replace(/[\s\u00a0]+/g, ' '));
      }
    }
    if (report === 'balance-sheet' || report === 'income-statement') expect(html).toContain('<svg');
    else expect(html).not.toContain('<svg');
  });

  it('spec 001 "include_zero_movement (true; Excel/HTML/PDF only, JSON always omits zero-movement accounts)": files list every account of the chart unless include_zero_movement=false, which leaves out the account with only an incoming balance as JSON does', async () => {
    const json = JSON.parse((await fetchAs('trial-balance', Q1, 'application/json')).bytes.toString('utf8')) as { account_code: string }[];
    const all = await readXlsxFile((await fetchAs('trial-balance', Q1, XLSX)).bytes);
    const some = await readXlsxFile((await fetchAs('trial-balance', `${Q1}&include_zero_movement=false`, XLSX)).bytes);
    const accounts = await app.seed.prisma.account.count({ where: { clientAccountId: f.t.account.id } });
    const codes = (rows: unknown[][]) => rows.filter((r) => typeof r[0] === 'string' && /^\d{4}$/.test(r[0] as string)).map((r) => r[0] as string);
    expect(codes(all[0].data)).toHaveLength(accounts);
    expect(codes(some[0].data)).toEqual(json.map((r) => r.account_code));
    // 2000 carries -100000.00 into Q1 and has no line in it: in the full file with its balance, not in the other or the JSON
    expect(all[0].data.find((r) => r[0] === '2000')).toEqual(['2000', expect.any(String), -100000, 0, 0, -100000]);
    expect(codes(some[0].data)).not.toContain('2000');
  });

  it('spec 001 "Output is chosen by the Accept header": a trial balance of 1000000000003584.01 is a numeric Excel cell, and HTML and PDF print every øre', async () => {
    const big = await app.seed.tenant();
    const X = '1000000000003584.01';
    const lines = ['500000000001792.00', '500000000001792.01'].flatMap((half) => [
      { posting_date: '2026-02-01', account_code: '1920', debit: half, credit: '0' },
      { posting_date: '2026-02-01', account_code: '2000', debit: '0', credit: half },
    ]);
    const posted = await app.http('POST', '/api/v2/journal-entries/', { token: big.user.token, body: { client_account_id: big.account.id, lines } });
    expect(posted.status, posted.text).toBe(201);
    const file = (accept: string) =>
      fetch(`${app.url}/api/v2/reports/trial-balance?client_account_id=${big.account.id}&${Q1}&include_zero_movement=false`, { headers: { authorization: `Bearer ${big.user.token}`, accept } });
    const [sheet] = await readXlsxFile(Buffer.from(await (await file(XLSX)).arrayBuffer()));
    const bank = sheet.data.find((r) => r[0] === '1920')!;
    expect(bank.slice(2)).toEqual([0, Number(X), 0, Number(X)]);
    expect(typeof bank[3]).toBe('number');
    const shown = formatCell('money', X);
    expect(shown).toBe('1\u00a0000\u00a0000\u00a0000\u00a0003\u00a0584,01');
    expect(await (await file('text/html')).text()).toContain(`<td class="n">${shown}</td>`);
    const pdf = join(workdir, 'big.pdf');
    writeFileSync(pdf, Buffer.from(await (await file('application/pdf')).arrayBuffer()));
    const { stdout } = await promisify(execFile)('pdftotext', ['-layout', '-enc', 'UTF-8', pdf, '-']);
    expect(stdout.replace(/[\s\u00a0]+/g, ' ')).toContain('1 000 000 000 003 584,01');
  });

  it('"Files cover the whole request": a general ledger of 967 lines has 967 lines in each file format (not the JSON page of 100), with a running balance ending at the outgoing balance and right page numbers', async () => {
    const big = await app.seed.tenant();
    // three entries of 400, 400 and 167 lines: debits on the bank, one credit on sales each
    for (const [date, n] of [['2026-01-15', 400], ['2026-02-15', 400], ['2026-03-15', 167]] as const) {
      const debits = Array.from({ length: n - 1 }, (_, i) => ({ posting_date: date, account_code: '1920', debit: ((i + 1) / 100).toFixed(2), credit: '0' }));
      const total = debits.reduce((s, l) => s + Math.round(Number(l.debit) * 100), 0);
      const posted = await app.http('POST', '/api/v2/journal-entries/', { token: big.user.token, body: { client_account_id: big.account.id, lines: [...debits, { posting_date: date, account_code: '3000', debit: '0', credit: (total / 100).toFixed(2) }] } });
      expect(posted.status, posted.text).toBe(201);
    }
    const get = (accept: string) => fetch(`${app.url}/api/v2/reports/general-ledger?client_account_id=${big.account.id}&${Q1}`, { headers: { authorization: `Bearer ${big.user.token}`, accept } });
    const page = await (await get('application/json')).json();
    expect(page.meta).toMatchObject({ records: 967, page: 1, pages: 10 });
    expect(page.data).toHaveLength(100);
    const table = await expected('general-ledger', Q1, big);
    expect(table.rows.filter((r) => r.kind === 'detail')).toHaveLength(967);
    const DATE_OF_LINE = /^(15\.0[123]\.2026)$/;

    const [sheet] = await readXlsxFile(Buffer.from(await (await get(XLSX)).arrayBuffer()));
    const lines = sheet.data.filter((r) => r[1] instanceof Date);
    expect(lines).toHaveLength(967);
    const bank = page.data[0].grouping;
    const bankLines = lines.filter((r) => r[0] === '1920');
    expect(bankLines.at(-1)![6]).toBe(Number(bank.outgoing_balance)); // Konto, Dato, Bilag, Beskrivelse, Debet, Kredit, Saldo…

    const html = await (await get('text/html')).text();
    expect(html.match(/<tr class="d">/g)).toHaveLength(967);

    const file = join(workdir, 'ledger-967.pdf');
    writeFileSync(file, Buffer.from(await (await get('application/pdf')).arrayBuffer()));
    const { stdout } = await promisify(execFile)('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-']);
    const pdfLines = stdout.split('\n').filter((l) => DATE_OF_LINE.test(l.trim().split(/\s+/)[1] ?? ''));
    expect(pdfLines).toHaveLength(967);
    const { stdout: info } = await promisify(execFile)('pdfinfo', [file]);
    const pages = Number(/Pages:\s+(\d+)/.exec(info)![1]);
    expect(pages).toBeGreaterThan(10);
    expect(stdout).toContain(`Side ${pages} av ${pages}`);
    expect(stdout).not.toContain(`Side ${pages + 1}`);
  });

  it('q-values choose among the offered types; nothing offered is 406 in the v2 envelope', async () => {
    const pdf = await fetchAs('trial-balance', Q1, 'text/csv;q=1, application/pdf;q=0.5');
    expect(pdf.res.headers.get('content-type')).toBe('application/pdf');
    const none = await fetchAs('trial-balance', Q1, 'image/png');
    expect(none.res.status).toBe(406);
    expect(JSON.parse(none.bytes.toString('utf8')).error.code).toBe('common.not_acceptable');
  });
});
