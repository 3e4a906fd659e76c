import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegrations } from '../../src/integrations/integrations.ts';
import { loadConfig } from '../../src/config.ts';
import { enqueue } from '../../src/jobs/jobs.ts';
import { taxReturnRefreshJob } from '../../src/modules/tax-returns/tax-returns.job.ts';
import { eventually, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { filingTenant, postCleanLedger, postFixtureLedger, postUnmappedLedger } from './fixtures.ts';

// spec 002 "Tax return", its rows in "States and transitions", and "Tax returns": every endpoint over
// REST against the govportal and taxauthority sandboxes (in-process, over HTTP).
const portal = createIntegrations(loadConfig({ DATA_DIR: '/tmp/unused' }).integrations).connector('govportal');

/** the sandbox's control: the authority decides a submitted filing */
const decide = (instance: string, status: 'approved' | 'rejected', reason?: string) =>
  portal.post(`/sandbox/filings/${instance.split('/').map(encodeURIComponent).join('/')}/decision`, { status, reason });
/** the sandbox's control: a filing made elsewhere earlier (what an import finds) */
const placeFiling = async (orgNumber: string, year: number, status: string, data: unknown) =>
  (await portal.post<{ id: string }>('/sandbox/filings', { kind: 'tax-return', org_number: orgNumber, reporting_year: year, status, data })).body.id;

const TAX_RETURN_KEYS = [
  'id',
  'client_account_id',
  'reporting_year',
  'from_date',
  'to_date',
  'tax_authority_reference',
  'portal_instance_id',
  'status',
  'submitted_at',
  'error_message',
  'receipt_voucher_id',
  'created_at',
  'created_by_id',
].sort();

describe.each(targets())('tax returns REST (%s)', (target) => {
  let app: TestApp;
  let stranger: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target, { jobs: { queues: [taxReturnRefreshJob.name] } });
    stranger = await app.seed.tenant();
  });
  afterAll(() => app?.close());

  const submit = (t: Tenant, body: Record<string, unknown>, token = t.user.token) => app.http('POST', '/api/v2/tax-returns', { token, body: { client_account_id: t.account.id, ...body } });
  const get = (t: Tenant, path: string, token = t.user.token) => app.http('GET', `/api/v2/tax-returns${path}`, { token });

  describe('preview: the næringsspesifikasjon computed from the ledger', () => {
    it('every figure of the hand-computed ledger (2026, defaults 1 January to 31 December)', async () => {
      const t = await filingTenant(app.seed);
      await postFixtureLedger(app.seed, t);
      const res = await get(t, `/preview?client_account_id=${t.account.id}&reporting_year=2026`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const p = res.body;
      expect(p).toMatchObject({ client_account_id: t.account.id, org_number: t.orgNumber, reporting_year: 2026, from_date: '2026-01-01', to_date: '2026-12-31' });
      const lines = (s: { lines: { code: string | null; amount: string; accounts: string[] }[] }) => s.lines.map((l) => [l.code, l.amount, l.accounts]);
      const r = p.resultatregnskap;
      expect(lines(r.driftsinntekter)).toEqual([['3000', '250000.00', ['3000']]]);
      expect(r.driftsinntekter.lines[0].description).toBe('Salgsinntekt og uttak, avgiftspliktig');
      expect(r.driftsinntekter.sum).toBe('250000.00');
      expect(lines(r.driftskostnader)).toEqual([
        ['4005', '80000.00', ['4300']],
        ['6300', '36000.00', ['6300']],
      ]);
      expect(r.driftskostnader.sum).toBe('116000.00');
      expect(r.driftsresultat).toBe('134000.00');
      expect(lines(r.finansinntekter)).toEqual([['8050', '1234.56', ['8050']]]);
      expect(lines(r.finanskostnader)).toEqual([['8150', '500.10', ['8150']]]);
      expect([r.netto_finans, r.resultat_foer_skatt, r.skattekostnad.sum, r.aarsresultat]).toEqual(['734.46', '134734.46', '0.00', '134734.46']);
      const b = p.balanse;
      expect(lines(b.eiendeler.anleggsmidler)).toEqual([]);
      expect(lines(b.eiendeler.omloepsmidler)).toEqual([
        ['1500', '250000.00', ['1500']],
        ['1560', '1000.00', ['1560']], // no SAF-T grouping: mapped by the account number
        ['1920', '68734.46', ['1920']],
      ]);
      expect(b.eiendeler.sum).toBe('319734.46');
      expect(lines(b.egenkapital_og_gjeld.egenkapital)).toEqual([
        ['2000', '100000.00', ['2000']],
        [null, '139734.46', []],
      ]);
      expect(b.egenkapital_og_gjeld.egenkapital.lines[1].description).toMatch(/ikke avsluttet/);
      expect(lines(b.egenkapital_og_gjeld.kortsiktig_gjeld)).toEqual([['2400', '80000.00', ['2400']]]);
      expect(b.egenkapital_og_gjeld.sum).toBe('319734.46');
      expect(p.unmapped_accounts).toEqual([]);
      expect(p.checks.map((c: { code: string; ok: boolean }) => [c.code, c.ok])).toEqual([
        ['BALANSE_BALANSERER', true],
        ['ALLE_KONTOER_TILORDNET', true],
        ['EGENKAPITAL_IKKE_NEGATIV', true],
      ]);
    });

    it('from_date and to_date narrow the result to the period; balances are closing balances on to_date', async () => {
      const t = await filingTenant(app.seed);
      await postFixtureLedger(app.seed, t);
      const res = await get(t, `/preview?client_account_id=${t.account.id}&reporting_year=2025&from_date=2025-01-01&to_date=2025-12-31`);
      expect(res.status).toBe(200);
      expect(res.body.resultatregnskap.driftsinntekter.sum).toBe('5000.00');
      expect(res.body.resultatregnskap.aarsresultat).toBe('5000.00');
      expect(res.body.balanse.eiendeler.sum).toBe('5000.00');
    });

    it('an account with no code is listed in unmapped_accounts with its amount and reason, not dropped; the balance check fails', async () => {
      const t = await filingTenant(app.seed);
      await postUnmappedLedger(app.seed, t);
      const res = await get(t, `/preview?client_account_id=${t.account.id}&reporting_year=2026`);
      expect(res.body.unmapped_accounts).toEqual([{ account_code: '1599', account_name: 'Egen konto uten kode', amount: '700.00', reason: expect.stringMatching(/no SAF-T grouping code/) }]);
      expect(res.body.checks.filter((c: { ok: boolean }) => !c.ok).map((c: { code: string }) => c.code)).toEqual(['BALANSE_BALANSERER', 'ALLE_KONTOER_TILORDNET']);
    });

    it.each([
      ['client_account_id missing', '?reporting_year=2026', 400],
      ['reporting_year missing', '?client_account_id=ID', 400],
      ['to_date before from_date', '?client_account_id=ID&reporting_year=2026&from_date=2026-06-01&to_date=2026-01-01', 400],
      ['another tenant’s account', '?client_account_id=OTHER&reporting_year=2026', 403],
    ])('%s → %i', async (_what, query, status) => {
      const t = await filingTenant(app.seed);
      const res = await get(t, `/preview${query.replace('ID', String(t.account.id)).replace('OTHER', String(stranger.account.id))}`);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body).toEqual({ error: expect.any(String), status });
    });
  });

  describe('fetch-prefilled and validate (the taxauthority sandbox)', () => {
    it('fetch-prefilled answers the authority’s data for the organisation and year, the same each time', async () => {
      const t = await filingTenant(app.seed);
      const res = await app.http('POST', `/api/v2/tax-returns/2025/fetch-prefilled?client_account_id=${t.account.id}`, { token: t.user.token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ org_number: t.orgNumber, income_year: 2025, bank_accounts: expect.any(Array), loans: expect.any(Array), properties: expect.any(Array), loss_carried_forward: expect.stringMatching(/^\d+\.\d{2}$/) });
      expect(res.body.bank_accounts[0]).toMatchObject({ deposit_dec31: expect.stringMatching(/^\d+\.00$/), interest_earned: expect.any(String) });
      const again = await app.http('POST', `/api/v2/tax-returns/2025/fetch-prefilled?client_account_id=${t.account.id}`, { token: t.user.token });
      expect(again.body).toEqual(res.body);
    });

    it.each([
      ['no organization number', 'plain', 2025, 400],
      ['a year the authority has nothing for', 'org', 2003, 404],
      ['another tenant’s account', 'stranger', 2025, 403],
      ['client_account_id missing', 'none', 2025, 400],
    ])('fetch-prefilled: %s → %s %s %i', async (_what, who, year, status) => {
      const t = who === 'plain' ? await app.seed.tenant() : await filingTenant(app.seed);
      const id = who === 'stranger' ? stranger.account.id : t.account.id;
      const res = await app.http('POST', `/api/v2/tax-returns/${year}/fetch-prefilled${who === 'none' ? '' : `?client_account_id=${id}`}`, { token: t.user.token });
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body).toEqual({ error: expect.any(String), status });
    });

    it('validate: a clean ledger is valid; an unmapped account gives UNMAPPED_ACCOUNTS and BALANCE_MISMATCH errors', async () => {
      const clean = await filingTenant(app.seed);
      await postCleanLedger(app.seed, clean);
      const ok = await app.http('POST', '/api/v2/tax-returns/2026/validate', { token: clean.user.token, body: { client_account_id: clean.account.id } });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body).toEqual({ valid: true, errors: [], warnings: [] });
      const bad = await filingTenant(app.seed);
      await postUnmappedLedger(app.seed, bad);
      const res = await app.http('POST', '/api/v2/tax-returns/2026/validate', { token: bad.user.token, body: { client_account_id: bad.account.id } });
      expect(res.body.valid).toBe(false);
      expect(res.body.errors.map((e: { code: string }) => e.code).sort()).toEqual(['BALANCE_MISMATCH', 'UNMAPPED_ACCOUNTS']);
      expect(res.body.errors[0]).toMatchObject({ severity: 'error', message: expect.any(String) });
    });

    it('validate: an empty ledger warns EMPTY; the query’s from_date/to_date choose the period', async () => {
      const t = await filingTenant(app.seed);
      await postCleanLedger(app.seed, t);
      const res = await app.http('POST', '/api/v2/tax-returns/2025/validate?from_date=2025-01-01&to_date=2025-12-31', { token: t.user.token, body: { client_account_id: t.account.id } });
      expect(res.body).toEqual({ valid: true, errors: [], warnings: [expect.objectContaining({ code: 'EMPTY', severity: 'warning' })] });
    });
  });

  describe('submit', () => {
    it('a clean ledger is SUBMITTED with the portal’s instance and reference, and the receipt PDF is stored as a voucher', async () => {
      const t = await filingTenant(app.seed);
      await postCleanLedger(app.seed, t);
      const res = await submit(t, { reporting_year: 2026 });
      expect(res.status, JSON.stringify(res.body)).toBe(201); // a tax return is created
      expect(Object.keys(res.body).sort()).toEqual(TAX_RETURN_KEYS);
      expect(res.body).toMatchObject({
        client_account_id: t.account.id,
        reporting_year: 2026,
        from_date: '2026-01-01',
        to_date: '2026-12-31',
        status: 'SUBMITTED',
        portal_instance_id: expect.stringMatching(/^\d+\/[0-9a-f-]{36}$/),
        tax_authority_reference: expect.stringMatching(/^SKM-2026-/),
        submitted_at: expect.any(String),
        error_message: null,
        receipt_voucher_id: expect.any(Number),
        created_by_id: t.user.id,
      });
      const voucher = await app.http('GET', `/api/v2/vouchers/${res.body.receipt_voucher_id}`, { token: t.user.token });
      expect(voucher.status).toBe(200);
      expect(voucher.body).toMatchObject({ client_account_id: t.account.id, status: 'ARCHIVED' });
      const file = await app.seed.prisma.voucher.findUniqueOrThrow({ where: { id: res.body.receipt_voucher_id }, include: { file: true } });
      expect(file.file).toMatchObject({ contentType: 'application/pdf', fileName: expect.stringMatching(/^Skattemelding 2026 kvittering SKM-2026-/) });
      expect(file.channel).toBe('govportal');
    });

    it('"SUBMITTED or DRAFT, by submission result": the authority’s errors keep it a DRAFT with error_message and no receipt', async () => {
      const t = await filingTenant(app.seed);
      await postUnmappedLedger(app.seed, t);
      const res = await submit(t, { reporting_year: 2026 });
      expect(res.status, JSON.stringify(res.body)).toBe(201); // a tax return is created
      expect(res.body).toMatchObject({ status: 'DRAFT', receipt_voucher_id: null, submitted_at: null, portal_instance_id: expect.any(String) });
      expect(res.body.error_message).toMatch(/UNMAPPED_ACCOUNTS/);
      expect(res.body.error_message).toMatch(/BALANCE_MISMATCH/);
    });

    it('ignore_warnings false: a warning keeps it a DRAFT; by default (true) it is submitted', async () => {
      const t = await filingTenant(app.seed); // nothing posted: EMPTY is a warning
      const strict = await submit(t, { reporting_year: 2026, ignore_warnings: false });
      expect(strict.body).toMatchObject({ status: 'DRAFT', error_message: expect.stringMatching(/EMPTY/) });
      const lenient = await submit(t, { reporting_year: 2026 });
      expect(lenient.body.status).toBe('SUBMITTED');
    });

    it('"a duplicate original submission is refused": a second egenfastsetting of the year is 400; a DRAFT does not block one', async () => {
      const t = await filingTenant(app.seed);
      await postUnmappedLedger(app.seed, t);
      expect((await submit(t, { reporting_year: 2026 })).body.status).toBe('DRAFT');
      expect((await submit(t, { reporting_year: 2026 })).body.status).toBe('DRAFT'); // still unmapped: a draft does not block another submission
      await app.seed.prisma.account.updateMany({ where: { clientAccountId: t.account.id, code: '1599' }, data: { saftGroupingCategory: 'balanseverdiForOmloepsmiddel', saftGroupingCode: '1570' } });
      const first = await submit(t, { reporting_year: 2026 });
      expect(first.body.status).toBe('SUBMITTED');
      const again = await submit(t, { reporting_year: 2026, innsendingsformaal: 'egenfastsetting' });
      expect(again.status).toBe(400);
      expect(again.body).toEqual({ error: expect.stringMatching(/already submitted/), status: 400 });
      expect((await submit(t, { reporting_year: 2025 })).body.status).toBe('SUBMITTED'); // another year is no duplicate
    });

    it('"a duplicate original submission is refused" also when three arrive at once: one SUBMITTED, the others 400, and the extra portal filings withdrawn', async () => {
      const t = await filingTenant(app.seed);
      const answers = await Promise.all([1, 2, 3].map(() => submit(t, { reporting_year: 2024 })));
      expect(answers.map((r) => r.status).sort()).toEqual([201, 400, 400].sort());
      const stored = await app.seed.prisma.taxReturn.findMany({ where: { clientAccountId: t.account.id, reportingYear: 2024 } });
      expect(stored.map((r) => r.status)).toEqual(['SUBMITTED']);
    });

    it('endringsanmodning: needs a filed (assessed) return, referenced automatically; none or only a draft or a submitted one is 400', async () => {
      const t = await filingTenant(app.seed);
      await postCleanLedger(app.seed, t);
      const none = await submit(t, { reporting_year: 2026, innsendingsformaal: 'endringsanmodning' });
      expect(none.status).toBe(400);
      expect(none.body.error).toMatch(/has none for 2026/);
      const original = await submit(t, { reporting_year: 2026 });
      expect((await submit(t, { reporting_year: 2026, innsendingsformaal: 'endringsanmodning' })).status).toBe(400); // submitted, not assessed yet
      await decide(original.body.portal_instance_id, 'approved');
      expect((await get(t, `/${original.body.id}/status`)).body.status).toBe('APPROVED');
      const correction = await submit(t, { reporting_year: 2026, innsendingsformaal: 'endringsanmodning' });
      expect(correction.status, JSON.stringify(correction.body)).toBe(201);
      expect(correction.body.status).toBe('SUBMITTED');
      const stored = await app.seed.prisma.taxReturn.findUniqueOrThrow({ where: { id: correction.body.id } });
      expect(stored).toMatchObject({ innsendingsformaal: 'endringsanmodning', correctsId: original.body.id });
      const atPortal = await portal.get<{ purpose: string; corrects: string }>(`/filings/${correction.body.portal_instance_id}`);
      expect(atPortal.body).toMatchObject({ purpose: 'correction', corrects: original.body.portal_instance_id });
    });

    it('endringsanmodning with only a draft of the year is 400 "(only a draft)"', async () => {
      const t = await filingTenant(app.seed);
      await postUnmappedLedger(app.seed, t);
      expect((await submit(t, { reporting_year: 2026 })).body.status).toBe('DRAFT');
      const res = await submit(t, { reporting_year: 2026, innsendingsformaal: 'endringsanmodning' });
      expect(res.body).toEqual({ error: expect.stringMatching(/only a draft/), status: 400 });
    });

    it.each<[string, Record<string, unknown>, RegExp]>([
      ['reporting_year missing', {}, /reporting_year/],
      ['client_account_id missing', { client_account_id: null, reporting_year: 2026 }, /client_account_id/],
      ['innsendingsformaal not one of the two', { reporting_year: 2026, innsendingsformaal: 'korreksjon' }, /innsendingsformaal: must be egenfastsetting/],
      ['to_date before from_date', { reporting_year: 2026, from_date: '2026-12-31', to_date: '2026-01-01' }, /to_date/],
      ['ignore_warnings not a boolean', { reporting_year: 2026, ignore_warnings: 'yes' }, /ignore_warnings/],
    ])('400: %s', async (_what, body, message) => {
      const t = await filingTenant(app.seed);
      const res = await submit(t, body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(message), status: 400 });
    });

    it('400 without an organization number; 403 for another tenant’s account; 403 with a read-only token; nothing is stored', async () => {
      const plain = await app.seed.tenant();
      expect((await submit(plain, { reporting_year: 2026 })).body).toEqual({ error: expect.stringMatching(/no organization number/), status: 400 });
      const t = await filingTenant(app.seed);
      expect((await submit(t, { client_account_id: stranger.account.id, reporting_year: 2026 })).status).toBe(403);
      expect((await submit(t, { reporting_year: 2026 }, t.user.readToken)).status).toBe(403);
      expect(await app.seed.prisma.taxReturn.count({ where: { clientAccountId: { in: [plain.account.id, t.account.id, stranger.account.id] } } })).toBe(0);
    });
  });

  describe('status refresh', () => {
    it.each([
      ['approved', 'APPROVED', null],
      ['rejected', 'REJECTED', 'Mangler vedlegg'],
    ] as const)('a SUBMITTED return is refreshed from the portal after the authority’s decision (%s)', async (decision, status, reason) => {
      const t = await filingTenant(app.seed);
      const submitted = (await submit(t, { reporting_year: 2026 })).body;
      expect((await get(t, `/${submitted.id}/status`)).body.status).toBe('SUBMITTED');
      await decide(submitted.portal_instance_id, decision, reason ?? undefined);
      const res = await get(t, `/${submitted.id}/status`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: submitted.id, status, error_message: reason });
      expect((await get(t, `/${submitted.id}`)).body.status).toBe(status);
    });

    it('the hourly job (tax-returns.refresh) refreshes every SUBMITTED return with an instance id', async () => {
      const t = await filingTenant(app.seed);
      const a = (await submit(t, { reporting_year: 2026 })).body;
      const b = (await submit(t, { reporting_year: 2025 })).body;
      await decide(a.portal_instance_id, 'approved');
      await enqueue(app.seed.prisma, taxReturnRefreshJob, { clientAccountIds: [t.account.id] });
      await eventually(async () => (await get(t, `/${a.id}`)).body.status === 'APPROVED', 'the job refreshed the approved return');
      expect((await get(t, `/${a.id}`)).body.status).toBe('APPROVED');
      expect((await get(t, `/${b.id}`)).body.status).toBe('SUBMITTED');
    });

    it('404 for no such return, 403 for another tenant’s', async () => {
      const t = await filingTenant(app.seed);
      expect((await get(t, '/999999999/status')).status).toBe(404);
      const theirs = await filingTenant(app.seed);
      const r = (await submit(theirs, { reporting_year: 2026 })).body;
      expect((await get(t, `/${r.id}/status`)).body).toEqual({ error: expect.any(String), status: 403 });
    });
  });

  describe('import', () => {
    const importBody = (t: Tenant, body: Record<string, unknown>) => app.http('POST', '/api/v2/tax-returns/import', { token: t.user.token, body: { client_account_id: t.account.id, ...body } });

    it('imports each filing not yet known as IMPORTED (seeded from readable data, warning when not), skips known ones; dry run writes nothing', async () => {
      const t = await filingTenant(app.seed);
      await postFixtureLedger(app.seed, t);
      const data = (await app.http('GET', `/api/v2/tax-returns/preview?client_account_id=${t.account.id}&reporting_year=2026`, { token: t.user.token })).body;
      expect(data.checks.every((c: { ok: boolean }) => c.ok)).toBe(true);
      // the filing data is the wire form the portal keeps: compute it the way a submission does
      const submitted = (await submit(t, { reporting_year: 2026 })).body;
      const filed = (await portal.get<{ data: unknown }>(`/filings/${submitted.portal_instance_id}/data`)).body.data;
      await app.seed.prisma.taxReturn.delete({ where: { id: submitted.id } }); // as if filed by another system
      const readable = await placeFiling(t.orgNumber, 2024, 'approved', { ...(filed as object), reporting_year: 2024 });
      const unreadable = await placeFiling(t.orgNumber, 2023, 'submitted', { skjema: 'RF-1028', innhold: 'pdf' });
      const draft = await placeFiling(t.orgNumber, 2022, 'draft', filed);

      const dry = await importBody(t, { dry_run: true });
      expect(dry.status, JSON.stringify(dry.body)).toBe(200);
      expect(dry.body.imported).toEqual(
        expect.arrayContaining([
          { year: 2026, portal_instance_id: submitted.portal_instance_id, seeded: false, warning: false, dry_run: true, tax_return_id: null },
          { year: 2024, portal_instance_id: readable, seeded: false, warning: false, dry_run: true, tax_return_id: null },
          { year: 2023, portal_instance_id: unreadable, seeded: false, warning: true, dry_run: true, tax_return_id: null },
        ]),
      );
      expect(dry.body.errors).toEqual([{ portal_instance_id: draft, reason: expect.stringMatching(/draft/) }]);
      expect(await app.seed.prisma.taxReturn.count({ where: { clientAccountId: t.account.id } })).toBe(0);

      const res = await importBody(t, {});
      expect(res.body.imported).toHaveLength(3);
      const byInstance = Object.fromEntries(res.body.imported.map((e: { portal_instance_id: string }) => [e.portal_instance_id, e]));
      expect(byInstance[readable]).toMatchObject({ year: 2024, seeded: true, warning: false, dry_run: false, tax_return_id: expect.any(Number) });
      expect(byInstance[unreadable]).toMatchObject({ year: 2023, seeded: false, warning: true });
      expect(res.body.skipped).toEqual([]);
      const imported = (await get(t, `/${byInstance[readable].tax_return_id}?with_net_wealth=true`)).body;
      expect(imported).toMatchObject({ status: 'IMPORTED', reporting_year: 2024, portal_instance_id: readable, tax_authority_reference: expect.stringMatching(/^SKM-2024-/) });
      // net_wealth from the seeded data: assets 319734.46, debts 80000.00
      expect(imported.net_wealth).toEqual({
        assets: [
          { code: '1500', description: 'Kundefordringer', amount: '250000.00' },
          { code: '1560', description: expect.any(String), amount: '1000.00' },
          { code: '1920', description: 'Bankinnskudd', amount: '68734.46' },
        ],
        debts: [{ code: '2400', description: 'Gjeld til leverandører', amount: '80000.00' }],
        total_assets: '319734.46',
        total_debts: '80000.00',
        net_wealth: '239734.46',
      });
      expect((await get(t, `/${byInstance[unreadable].tax_return_id}?with_net_wealth=true`)).body.net_wealth).toBeNull();

      const again = await importBody(t, { year: 2024 });
      expect(again.body).toEqual({ imported: [], skipped: [{ year: 2024, portal_instance_id: readable }], errors: [] });
    });

    it('"IMPORTED … excluded from submit, cancel, status refresh": cancel is 400, status answers as stored; an imported assessed return is what a correction corrects and blocks an original', async () => {
      const t = await filingTenant(app.seed);
      await postCleanLedger(app.seed, t);
      await placeFiling(t.orgNumber, 2026, 'approved', {});
      const id = (await importBody(t, { year: 2026 })).body.imported[0].tax_return_id;
      expect((await app.http('POST', `/api/v2/tax-returns/${id}/cancel`, { token: t.user.token })).body).toEqual({ error: expect.stringMatching(/IMPORTED/), status: 400 });
      expect((await get(t, `/${id}/status`)).body.status).toBe('IMPORTED');
      expect((await submit(t, { reporting_year: 2026 })).status).toBe(400);
      const correction = await submit(t, { reporting_year: 2026, innsendingsformaal: 'endringsanmodning' });
      expect(correction.body.status).toBe('SUBMITTED');
    });

    it('auth maskinporten (and auto) import as the account’s Active system user, with its govportal:filings.read token', async () => {
      const t = await filingTenant(app.seed);
      await placeFiling(t.orgNumber, 2021, 'approved', {});
      const su = await app.http('POST', '/api/v2/integrations/govportal/system-users', { token: t.user.token, body: { client_account_id: t.account.id } });
      expect(su.status, JSON.stringify(su.body)).toBe(201);
      expect(su.body.rights).toContainEqual({ resource: 'govportal-filings', scope: 'govportal:filings.read' });
      const pending = await importBody(t, { auth: 'maskinporten', dry_run: true });
      expect(pending).toMatchObject({ status: 403, body: { error: expect.stringMatching(/no active system user with the right govportal:filings.read/) } });
      expect((await portal.post(`/sandbox/system-users/${su.body.id}/status`, { status: 'Active' })).status).toBe(200);
      const viaSystemUser = await importBody(t, { auth: 'maskinporten', dry_run: true });
      expect(viaSystemUser.status, JSON.stringify(viaSystemUser.body)).toBe(200);
      expect(viaSystemUser.body.imported).toEqual([expect.objectContaining({ year: 2021, dry_run: true, seeded: false })]);
      const viaAuto = await importBody(t, { year: 2021 });
      expect(viaAuto.body.imported).toEqual([expect.objectContaining({ year: 2021, tax_return_id: expect.any(Number) })]);
    });

    it.each<[string, Record<string, unknown>, number]>([
      ['auth not auto, service or maskinporten', { auth: 'password' }, 400],
      ['auth maskinporten without an active system user of the account', { auth: 'maskinporten' }, 403],
      ['dry_run not a boolean', { dry_run: 'yes' }, 400],
      ['year not an integer', { year: 'last' }, 400],
    ])('%s (%j) → %i', async (_what, body, status) => {
      const t = await filingTenant(app.seed);
      const res = await importBody(t, body);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body).toEqual({ error: expect.any(String), status });
    });

    it('auth service imports as auto does; another tenant’s account is 403', async () => {
      const t = await filingTenant(app.seed);
      await placeFiling(t.orgNumber, 2021, 'approved', {});
      expect((await importBody(t, { auth: 'service' })).body.imported).toHaveLength(1);
      expect((await importBody(t, { client_account_id: stranger.account.id })).status).toBe(403);
    });
  });

  describe('cancel', () => {
    it.each([
      ['DRAFT', 200],
      ['SUBMITTED', 200],
      ['APPROVED', 400],
      ['REJECTED', 400],
      ['CANCELLED', 400],
    ] as const)('%s → %i', async (status, code) => {
      const t = await filingTenant(app.seed);
      if (status === 'DRAFT') await postUnmappedLedger(app.seed, t);
      const r = (await submit(t, { reporting_year: 2026 })).body;
      if (status === 'APPROVED' || status === 'REJECTED') {
        await decide(r.portal_instance_id, status === 'APPROVED' ? 'approved' : 'rejected');
        await get(t, `/${r.id}/status`);
      }
      if (status === 'CANCELLED') await app.http('POST', `/api/v2/tax-returns/${r.id}/cancel`, { token: t.user.token });
      expect((await get(t, `/${r.id}`)).body.status).toBe(status);
      const res = await app.http('POST', `/api/v2/tax-returns/${r.id}/cancel`, { token: t.user.token });
      expect(res.status, JSON.stringify(res.body)).toBe(code);
      if (code === 200) {
        expect(res.body.status).toBe('CANCELLED');
        expect((await portal.get<{ status: string }>(`/filings/${r.portal_instance_id}`)).body.status).toBe('cancelled');
      } else {
        expect(res.body).toEqual({ error: expect.stringMatching(/only a DRAFT or SUBMITTED/), status: 400 });
        expect((await get(t, `/${r.id}`)).body.status).toBe(status);
      }
    });

    it('404 for no such return; 403 for another tenant’s', async () => {
      const t = await filingTenant(app.seed);
      expect((await app.http('POST', '/api/v2/tax-returns/999999999/cancel', { token: t.user.token })).status).toBe(404);
      const r = (await submit(stranger as never, { client_account_id: t.account.id, reporting_year: 2026 }, t.user.token)).body;
      expect((await app.http('POST', `/api/v2/tax-returns/${r.id}/cancel`, { token: stranger.user.token })).status).toBe(403);
    });
  });

  describe('list and get', () => {
    it('filters by client_account_id (one, repeated or comma list), reporting_year and status; ordered -reporting_year by default; paged with the envelope', async () => {
      const t = await filingTenant(app.seed);
      const second = await filingTenant(app.seed);
      await app.seed.grantRole({ userId: t.user.id, clientAccountId: second.account.id, role: 'CA' });
      const a = (await submit(t, { reporting_year: 2024 })).body;
      const b = (await submit(t, { reporting_year: 2026 })).body;
      const c = (await submit(second, { reporting_year: 2025 }, t.user.token)).body;
      await app.http('POST', `/api/v2/tax-returns/${a.id}/cancel`, { token: t.user.token });
      const ids = (res: { body: { data: { id: number }[] } }) => res.body.data.map((r) => r.id);

      const all = await get(t, `?client_account_id=${t.account.id},${second.account.id}`);
      expect(all.status).toBe(200);
      expect(ids(all)).toEqual([b.id, c.id, a.id]);
      expect(all.body.meta).toEqual({ page: 1, pages: 1, per_page: 100, records: 3 });
      expect(ids(await get(t, `?client_account_id=${t.account.id}&client_account_id=${second.account.id}&order_by=reporting_year`))).toEqual([a.id, c.id, b.id]);
      expect(ids(await get(t, `?client_account_id=${t.account.id}`))).toEqual([b.id, a.id]);
      expect(ids(await get(t, `?client_account_id=${t.account.id},${second.account.id}&reporting_year=2025`))).toEqual([c.id]);
      expect(ids(await get(t, `?client_account_id=${t.account.id},${second.account.id}&status=CANCELLED,APPROVED`))).toEqual([a.id]);
      const page = await get(t, `?client_account_id=${t.account.id},${second.account.id}&page=2&page_size=2`);
      expect(ids(page)).toEqual([a.id]);
      expect(page.body.meta).toEqual({ page: 2, pages: 2, per_page: 2, records: 3 });
      // no client_account_id: every account the caller may see
      expect(ids(await get(t, ''))).toEqual([b.id, c.id, a.id]);
      expect(all.body.data[0].created_by).toBeUndefined();
      expect((await get(t, `?client_account_id=${t.account.id}&with=created_by`)).body.data[0].created_by).toEqual({ id: t.user.id, first_name: 'Test', last_name: 'User', email: t.user.email });
    });

    it.each([
      ['another tenant’s account', 'client_account_id=OTHER', 403],
      ['an unknown status', 'status=FILED', 400],
      ['an unknown order_by field', 'order_by=-name', 400],
      ['page 0', 'page=0', 400],
    ])('%s → %i', async (_what, query, status) => {
      const t = await filingTenant(app.seed);
      const res = await get(t, `?${query.replace('OTHER', String(stranger.account.id))}`);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body).toEqual({ error: expect.any(String), status });
    });

    it('get: the resource’s fields; with=created_by; with_net_wealth from the submitted data; 404 and 403', async () => {
      const t = await filingTenant(app.seed);
      await postFixtureLedger(app.seed, t);
      const r = (await submit(t, { reporting_year: 2026 })).body;
      const res = await get(t, `/${r.id}`);
      expect(res.body).toEqual(r);
      const full = await get(t, `/${r.id}?with=created_by&with_net_wealth=true`);
      expect(full.body.created_by).toMatchObject({ id: t.user.id });
      expect(full.body.net_wealth).toMatchObject({ total_assets: '319734.46', total_debts: '80000.00', net_wealth: '239734.46' });
      expect((await get(t, '/999999999')).status).toBe(404);
      expect((await get(stranger, `/${r.id}`, stranger.user.token)).status).toBe(403);
      expect((await get(t, '/abc')).status).toBe(400);
    });
  });
});
