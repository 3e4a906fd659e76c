import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSaft } from '../../src/modules/reports/saft/saft.checks.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { randomOrganizationNumber } from '../support/seed.ts';
import { seedReportFixture, type ReportFixture } from './fixture.ts';

// spec 001 "Reports", /reports/data-export: "Accept text/xml: SAF-T XML download. Accept
// application/zip: starts an asynchronous export, 202 with a message, the ZIP is emailed when ready";
// "common.validation_error 400 (… client account not found on data-export)".
const XSD = resolve(import.meta.dirname, '../../src/modules/reports/saft/Norwegian_SAF-T_Financial_Schema_v_1.30.xsd');

describe.each(targets())('GET /reports/data-export (%s)', (target) => {
  let app: TestApp;
  let f: ReportFixture;
  let orgnr: string;
  const scratch = mkdtempSync(join(tmpdir(), 'data-export-'));

  beforeAll(async () => {
    app = await startTestApp(target);
    f = await seedReportFixture(app);
    orgnr = randomOrganizationNumber();
    await app.seed.prisma.clientAccount.update({ where: { id: f.t.account.id }, data: { organizationNumber: orgnr } });
  });
  afterAll(async () => {
    rmSync(scratch, { recursive: true, force: true });
    await app?.close();
  });

  const exportAs = (qs: string, accept?: string, token = f.t.user.token) =>
    app.http('GET', `/api/v2/reports/data-export?${qs}`, { token, headers: accept ? { accept } : undefined });
  const Q1 = () => `client_account_id=${f.t.account.id}&date_from=2026-01-01&date_to=2026-03-31`;

  it('Accept text/xml: the SAF-T file as a download that validates against the 1.30 XSD and passes our own checks', async () => {
    const res = await exportAs(Q1(), 'text/xml');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="SAF-T Financial_${orgnr}_\\d{14}\\.xml"`));
    const file = join(scratch, 'q1.xml');
    writeFileSync(file, res.text);
    const lint = spawnSync('xmllint', ['--noout', '--schema', XSD, file], { encoding: 'utf8' });
    expect(lint.status, lint.stderr).toBe(0);
    expect(checkSaft(res.text).problems).toEqual([]);
    // the posted entries of Q1: invoice, purchase, payment, rent and the cancelled original (the draft is left out)
    expect(res.text).toContain('<NumberOfEntries>5</NumberOfEntries>');
    expect(res.text).toContain(`<RegistrationNumber>${orgnr}</RegistrationNumber>`);
  });

  it('result accounts open the year at zero; the result of earlier years not closed opens in equity (2050), so the opening balances net to zero', async () => {
    const res = await exportAs(Q1(), 'text/xml');
    const parsed = new XMLParser({ parseTagValue: false, isArray: (name) => name === 'Account' }).parse(res.text);
    const accounts = parsed.AuditFile.MasterFiles.GeneralLedgerAccounts.Account as Record<string, string>[];
    const opening = (code: string) => {
      const a = accounts.find((x) => x.AccountID === code)!;
      return Number(a.OpeningDebitBalance ?? 0) - Number(a.OpeningCreditBalance ?? 0);
    };
    // the fixture's 2025 sale (3000 C 5000) was never closed into equity
    expect(opening('3000')).toBe(0);
    expect(opening('2050')).toBe(-5000);
    expect(opening('1920')).toBe(100000);
    const net = accounts.reduce((sum, a) => sum + Math.round((Number(a.OpeningDebitBalance ?? 0) - Number(a.OpeningCreditBalance ?? 0)) * 100), 0);
    expect(net).toBe(0);
    expect(checkSaft(res.text).problems).toEqual([]);
  });

  it('no Accept or */* gets the XML too; application/json is 406 in the v2 envelope (the export has no JSON form)', async () => {
    for (const accept of [undefined, '*/*']) {
      const res = await exportAs(Q1(), accept);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/xml/);
    }
    const json = await exportAs(Q1(), 'application/json');
    expect(json.status).toBe(406);
    expect(json.body.error.code).toBe('common.not_acceptable');
  });

  it('Accept application/zip: 202 with a message; the export runs as a job that mails the ZIP', async () => {
    const res = await exportAs(Q1(), 'application/zip');
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ message: expect.stringContaining(f.t.user.email) });
    const jobs = await app.db.prisma.$queryRawUnsafe<{ data: { clientAccountId: number } }[]>(
      "SELECT data FROM pgboss.job WHERE name = 'reports.saft-export' AND (data->>'clientAccountId')::int = $1",
      f.t.account.id,
    );
    expect(jobs).toHaveLength(1);
  });

  it.each([
    ['an unknown client account is 400 common.validation_error', () => 'client_account_id=999999999&date_from=2026-01-01&date_to=2026-03-31', 400, 'common.validation_error'],
    ['date_from is required', () => `client_account_id=${f.t.account.id}&date_to=2026-03-31`, 400, 'common.validation_error'],
    ['date_to is required', () => `client_account_id=${f.t.account.id}&date_from=2026-01-01`, 400, 'common.validation_error'],
    ['a missing client_account_id is 403 common.forbidden', () => 'date_from=2026-01-01&date_to=2026-03-31', 403, 'common.forbidden'],
  ])('%s', async (_rule, qs, status, code) => {
    const res = await exportAs(qs(), 'text/xml');
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ code, request_id: res.headers.get('x-request-id') });
  });

  it('another client account’s export is 403 common.forbidden', async () => {
    const other = await app.seed.tenant();
    const res = await exportAs(Q1(), 'text/xml', other.user.token);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('common.forbidden');
  });
});
