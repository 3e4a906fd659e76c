import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegrations } from '../../src/integrations/integrations.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { companyWithLedger, LEDGER, NEGATIVE_EQUITY } from './fixture.ts';

// spec 002 "Yearly account submission" (id, client_account_id, reporting_year, from_date, to_date,
// status, portal_instance_id, main_form_id, sub_form_id, submitted_at, error_message, created_at,
// created_by_id, updated_at; note {note_number, key, title, body_type, body, footer_text?}), its rows
// in "States and transitions" and "Yearly accounts". Errors 400, 403 (404 for an unknown id).
describe.each(targets())('yearly accounts REST (%s)', (target) => {
  let app: TestApp;
  type Company = Awaited<ReturnType<typeof companyWithLedger>>;
  let company: Company;

  beforeAll(async () => {
    app = await startTestApp(target);
    company = await companyWithLedger(app);
  });
  afterAll(() => app?.close());

  const get = (path: string, token = company.user.token) => app.http('GET', `/api/v2/yearly-accounts${path}`, { token });
  const post = (path: string, body?: unknown, token = company.user.token) => app.http('POST', `/api/v2/yearly-accounts${path}`, { token, body });
  const preview = (c: Company, query = '') => get(`/preview?client_account_id=${c.account.id}&reporting_year=2024${query}`, c.user.token);
  const figures = (lines: { key: string; amount: string; previous_amount: string }[]) => Object.fromEntries(lines.map((l) => [l.key, [l.amount, l.previous_amount]]));
  const portal = () => createIntegrations(app.config.integrations).connector('govportal');
  const decide = (instanceId: string, status: 'approved' | 'rejected', reason?: string) => portal().post(`/sandbox/filings/${instanceId}/decision`, { status, reason });

  /** A fresh company of its own (no postings unless a ledger is given) with a DRAFT for 2024. */
  async function draft(options: Parameters<typeof companyWithLedger>[1] = {}) {
    const c = await companyWithLedger(app, { ledger: [], ...options });
    const res = await post('/drafts', { client_account_id: c.account.id, reporting_year: 2024 }, c.user.token);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { c, draft: res.body };
  }

  describe('GET /yearly-accounts/preview', () => {
    it.each<[string, string, string]>([
      ['salgsinntekt', '100000.00', '50000.00'],
      ['annen_driftsinntekt', '20000.00', '0.00'],
      ['sum_driftsinntekter', '120000.00', '50000.00'],
      ['varekostnad', '30000.00', '0.00'],
      ['lonnskostnad', '25000.00', '0.00'],
      ['avskrivning', '8000.00', '0.00'],
      ['annen_driftskostnad', '12000.00', '20000.00'],
      ['sum_driftskostnader', '75000.00', '20000.00'],
      ['driftsresultat', '45000.00', '30000.00'],
      ['finansinntekt', '500.50', '0.00'],
      ['finanskostnad', '3000.25', '0.00'],
      ['resultat_for_skatt', '42500.25', '30000.00'],
      ['skattekostnad', '9000.00', '0.00'],
      ['arsresultat', '33500.25', '30000.00'],
      // no closing entry in either year: the result stays in 2050, shown as transferred to annen egenkapital
      ['avsatt_utbytte', '0.00', '0.00'],
      ['andre_overforinger', '0.00', '0.00'],
      ['overfort_udekket_tap', '0.00', '0.00'],
      ['overfort_annen_egenkapital', '33500.25', '30000.00'],
      ['sum_overforinger', '33500.25', '30000.00'],
    ])('income statement with the previous year: %s is %s (2023: %s)', async (key, amount, previous) => {
      const res = await preview(company);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(figures(res.body.income_statement)[key]).toEqual([amount, previous]);
    });

    it.each<[string, string, string]>([
      ['immaterielle_eiendeler', '0.00', '0.00'],
      ['tomter_bygninger', '0.00', '0.00'],
      ['maskiner_inventar', '32000.00', '0.00'],
      ['finansielle_anleggsmidler', '5000.00', '0.00'],
      ['anleggsmidler', '37000.00', '0.00'],
      ['varer', '0.00', '0.00'],
      ['kundefordringer', '70000.00', '50000.00'],
      ['andre_fordringer', '0.00', '0.00'],
      ['investeringer', '0.00', '0.00'],
      ['bankinnskudd_kontanter', '85500.25', '10000.00'],
      ['omlopsmidler', '155500.25', '60000.00'],
      ['sum_eiendeler', '192500.25', '60000.00'],
      ['aksjekapital', '30000.00', '30000.00'],
      ['overkurs', '0.00', '0.00'],
      ['annen_innskutt_egenkapital', '0.00', '0.00'],
      ['annen_egenkapital', '63500.25', '30000.00'],
      ['egenkapital', '93500.25', '60000.00'],
      ['avsetninger_forpliktelser', '0.00', '0.00'],
      ['gjeld_kredittinstitusjoner', '60000.00', '0.00'],
      ['annen_langsiktig_gjeld', '0.00', '0.00'],
      ['langsiktig_gjeld', '60000.00', '0.00'],
      ['leverandorgjeld', '30000.00', '0.00'],
      ['betalbar_skatt', '9000.00', '0.00'],
      ['skyldige_offentlige_avgifter', '0.00', '0.00'],
      ['annen_kortsiktig_gjeld', '0.00', '0.00'],
      ['kortsiktig_gjeld', '39000.00', '0.00'],
      ['sum_gjeld', '99000.00', '0.00'],
      ['sum_egenkapital_og_gjeld', '192500.25', '60000.00'],
    ])('balance sheet at year end with the previous year end: %s is %s (2023: %s)', async (key, amount, previous) => {
      const res = await preview(company);
      expect(figures(res.body.balance_sheet)[key]).toEqual([amount, previous]);
    });

    it('"the line items of each section sum to its sum line": the balance sheet in order, each section\'s sum (is_sum) after its items, both years', async () => {
      const res = await preview(company);
      const lines = res.body.balance_sheet as { key: string; amount: string; previous_amount: string; is_sum: boolean }[];
      expect(lines.filter((l) => l.is_sum).map((l) => l.key)).toEqual(['anleggsmidler', 'omlopsmidler', 'sum_eiendeler', 'egenkapital', 'langsiktig_gjeld', 'kortsiktig_gjeld', 'sum_gjeld', 'sum_egenkapital_og_gjeld']);
      let items: typeof lines = [];
      for (const l of lines) {
        if (!l.is_sum) {
          items.push(l);
          continue;
        }
        if (['sum_eiendeler', 'sum_gjeld', 'sum_egenkapital_og_gjeld'].includes(l.key)) continue;
        for (const which of ['amount', 'previous_amount'] as const) {
          expect([l.key, which, items.reduce((s, i) => s + Math.round(Number(i[which]) * 100), 0)]).toEqual([l.key, which, Math.round(Number(l[which]) * 100)]);
        }
        items = [];
      }
    });

    it('answers the period (calendar year by default), the checks and the notes that would be generated', async () => {
      const res = await preview(company);
      expect(res.body).toMatchObject({ client_account_id: company.account.id, reporting_year: 2024, from_date: '2024-01-01', to_date: '2024-12-31' });
      expect(res.body.checks).toEqual([
        { key: 'balance_sheet_balances', passed: true, severity: 'error', message: expect.stringContaining('192500.25') },
        { key: 'equity_not_negative', passed: true, severity: 'warning', message: expect.any(String) },
        { key: 'result_allocated', passed: false, severity: 'warning', message: expect.stringContaining('transferred to annen egenkapital') },
      ]);
      const notes = res.body.notes;
      expect(notes.map((n: any) => [n.note_number, n.key, n.body_type])).toEqual([
        [1, 'accounting_principles', 'text'],
        [2, 'employees', 'text'],
        [3, 'fixed_assets', 'table'],
        [4, 'equity', 'table'],
        [5, 'receivables', 'table'],
        [6, 'loans_to_shareholders', 'text'],
      ]);
      for (const n of notes) expect(Object.keys(n).sort()).toEqual(['body', 'body_type', 'footer_text', 'key', 'note_number', 'title']);
      const note = (key: string) => notes.find((n: any) => n.key === key);
      expect(note('employees').body).toBe('Selskapet har hatt 1 ansatt i 2024. Samlede lønnskostnader var kr 25 000,00.');
      expect(note('fixed_assets').body).toEqual({
        columns: ['Eiendelsgruppe', 'Inngående bokført verdi', 'Tilgang', 'Avgang', 'Avskrivning', 'Utgående bokført verdi'],
        rows: [
          ['Transportmidler, inventar og maskiner', '0,00', '40 000,00', '0,00', '8 000,00', '32 000,00'],
          ['Sum', '0,00', '40 000,00', '0,00', '8 000,00', '32 000,00'],
        ],
      });
      expect(note('fixed_assets').footer_text).toContain('Årets avskrivninger i resultatregnskapet: kr 8 000,00');
      expect(note('equity').body.rows).toEqual([
        ['Egenkapital ved årets begynnelse', '60 000,00'],
        ['Årets resultat', '33 500,25'],
        ['Avsatt utbytte', '0,00'],
        ['Andre endringer', '0,00'],
        ['Egenkapital ved årets slutt', '93 500,25'],
      ]);
      expect(note('receivables').body).toEqual({
        columns: ['Fordringer', '2024', '2023'],
        rows: [
          ['Kundefordringer', '70 000,00', '50 000,00'],
          ['Andre kortsiktige fordringer', '0,00', '0,00'],
          ['Fordringer med forfall senere enn ett år', '5 000,00', '0,00'],
        ],
      });
      expect(note('loans_to_shareholders').body).toContain('kr 5 000,00');
    });

    it('spec 002 "Notes auto-generated": the fixed-asset note shows a group that only carries its book value through the year (no movement, which the JSON trial balance leaves out)', async () => {
      const c = await companyWithLedger(app, {
        ledger: [
          ['2023-03-01', [['1250', '500000.00', '0'], ['2000', '0', '500000.00']]],
          ['2024-05-02', [['1920', '1000.00', '0'], ['3000', '0', '1000.00']]],
        ],
      });
      const res = await preview(c);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.notes.find((n: any) => n.key === 'fixed_assets').body.rows).toEqual([
        ['Transportmidler, inventar og maskiner', '500 000,00', '0,00', '0,00', '0,00', '500 000,00'],
        ['Sum', '500 000,00', '0,00', '0,00', '0,00', '500 000,00'],
      ]);
    });

    it('"a going-concern note when equity is negative": the check fails and the note is generated', async () => {
      const c = await companyWithLedger(app, { ledger: NEGATIVE_EQUITY });
      const res = await preview(c);
      expect(figures(res.body.balance_sheet).egenkapital).toEqual(['-20000.00', '0.00']);
      expect(res.body.checks.find((k: any) => k.key === 'equity_not_negative')).toMatchObject({ passed: false, severity: 'warning' });
      const keys = res.body.notes.map((n: any) => n.key);
      expect(keys).toContain('going_concern');
      expect(keys).not.toContain('loans_to_shareholders');
      expect(res.body.notes.find((n: any) => n.key === 'employees').body).toBe('Selskapet har hatt 1 ansatt i 2024. Samlede lønnskostnader var kr 0,00.');
    });

    it('from_date/to_date narrow the period', async () => {
      const res = await preview(company, '&from_date=2024-01-01&to_date=2024-03-31');
      expect(res.body.to_date).toBe('2024-03-31');
      expect(figures(res.body.income_statement).sum_driftsinntekter[0]).toBe('120000.00');
      expect(figures(res.body.income_statement).lonnskostnad[0]).toBe('0.00');
    });

    it.each<[string, string, number, RegExp]>([
      ['reporting_year missing', 'client_account_id={id}', 400, /reporting_year: is required/],
      ['client_account_id missing', 'reporting_year=2024', 400, /client_account_id: is required/],
      ['to_date before from_date', 'client_account_id={id}&reporting_year=2024&from_date=2024-05-01&to_date=2024-04-01', 400, /to_date: must not be before from_date/],
      ['reporting_year not a year', 'client_account_id={id}&reporting_year=20245', 400, /reporting_year/],
    ])('%s → %i', async (_what, query, status, error) => {
      const res = await get(`/preview?${query.replace('{id}', String(company.account.id))}`);
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ error: expect.stringMatching(error), status });
    });

    it('someone else’s client account → 403 {error, status}', async () => {
      const other = await app.seed.tenant();
      const res = await get(`/preview?client_account_id=${company.account.id}&reporting_year=2024`, other.user.token);
      expect(res).toMatchObject({ status: 403, body: { error: expect.any(String), status: 403 } });
    });
  });

  describe('drafts, submissions and the state table', () => {
    it('POST /drafts → a DRAFT with every field of the resource; nothing at the portal yet', async () => {
      const { c, draft: d } = await draft();
      expect(d).toEqual({
        id: expect.any(Number),
        client_account_id: c.account.id,
        reporting_year: 2024,
        from_date: '2024-01-01',
        to_date: '2024-12-31',
        status: 'DRAFT',
        portal_instance_id: null,
        main_form_id: null,
        sub_form_id: null,
        submitted_at: null,
        error_message: null,
        created_at: expect.any(String),
        created_by_id: c.user.id,
        updated_at: expect.any(String),
      });
      expect((await get(`/submissions/${d.id}`, c.user.token)).body).toEqual(d);
    });

    it('"Notes auto-generated": GET notes of a draft answers the notes generated from the ledger', async () => {
      const { c, draft: d } = await draft({ ledger: LEDGER });
      const notes = await get(`/submissions/${d.id}/notes`, c.user.token);
      expect(notes.status).toBe(200);
      expect(notes.body).toEqual((await preview(c)).body.notes);
    });

    it('a second open submission for the same account and year is refused (400); after cancelling, a new draft may be made', async () => {
      const { c, draft: d } = await draft();
      const again = await post('/drafts', { client_account_id: c.account.id, reporting_year: 2024 }, c.user.token);
      expect(again).toMatchObject({ status: 400, body: { error: expect.stringContaining(`already has yearly account submission ${d.id} (DRAFT)`), status: 400 } });
      const direct = await post('/submissions', { client_account_id: c.account.id, reporting_year: 2024 }, c.user.token);
      expect(direct.status).toBe(400);
      expect((await post(`/submissions/${d.id}/cancel`, undefined, c.user.token)).body.status).toBe('CANCELLED');
      expect((await post('/drafts', { client_account_id: c.account.id, reporting_year: 2024 }, c.user.token)).status).toBe(201);
    });

    it('POST /submissions "submits directly": SUBMITTED with the portal instance and the main and notes form ids', async () => {
      const c = await companyWithLedger(app);
      const res = await post('/submissions', { client_account_id: c.account.id, reporting_year: 2024 }, c.user.token);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ status: 'SUBMITTED', main_form_id: 'RR-0002', sub_form_id: 'RR-0002-N', portal_instance_id: expect.stringMatching(/^\d{8}\/[0-9a-f-]{36}$/), submitted_at: expect.any(String), error_message: null });
      const filing = await portal().get<any>(`/filings/${res.body.portal_instance_id}/data`);
      expect(filing.body.data).toMatchObject({ main_form_id: 'RR-0002', sub_form_id: 'RR-0002-N', balance_sheet: { sum_eiendeler: '192500.25' }, income_statement: { arsresultat: '33500.25' } });
      expect(filing.body.data.notes[0]).toMatchObject({ note_number: 1, key: 'accounting_principles', body_type: 'text' });
    });

    it('"Organization number needed": a client account without one → 400 and nothing stored', async () => {
      const c = await companyWithLedger(app, { orgNumber: false });
      const res = await post('/submissions', { client_account_id: c.account.id, reporting_year: 2024 }, c.user.token);
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining('no organization number'), status: 400 } });
      expect(await app.seed.prisma.yearlyAccountSubmission.count({ where: { clientAccountId: c.account.id } })).toBe(0);
    });

    it('the portal’s error findings (negative equity without a going-concern note) → 400 naming them; the draft stays a DRAFT', async () => {
      const { c, draft: d } = await draft({ ledger: NEGATIVE_EQUITY });
      const notes = (await get(`/submissions/${d.id}/notes`, c.user.token)).body.filter((n: any) => n.key !== 'going_concern');
      expect((await app.http('PUT', `/api/v2/yearly-accounts/submissions/${d.id}/notes`, { token: c.user.token, body: notes })).status).toBe(200);
      const res = await post(`/submissions/${d.id}/submit`, undefined, c.user.token);
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringMatching(/findings\.going_concern_note_missing: error: Equity is negative/), status: 400 } });
      expect((await get(`/submissions/${d.id}`, c.user.token)).body).toMatchObject({ status: 'DRAFT', portal_instance_id: null });
    });

    it('submit sends the edited notes', async () => {
      const { c, draft: d } = await draft();
      const notes = [
        { note_number: 1, key: 'accounting_principles', title: 'Regnskapsprinsipper', body_type: 'text', body: 'Egne prinsipper.' },
        { note_number: 2, key: 'employees', title: 'Ansatte', body_type: 'text', body: 'Én ansatt.' },
      ];
      expect((await app.http('PUT', `/api/v2/yearly-accounts/submissions/${d.id}/notes`, { token: c.user.token, body: notes })).status).toBe(200);
      const submitted = await post(`/submissions/${d.id}/submit`, undefined, c.user.token);
      expect(submitted.body.status).toBe('SUBMITTED');
      const sent = await portal().get<any>(`/filings/${submitted.body.portal_instance_id}/data`);
      expect(sent.body.data.notes.map((n: any) => n.body)).toEqual(['Egne prinsipper.', 'Én ansatt.']);
    });

    /** A submission of a fresh company in the status asked for. */
    async function inStatus(status: string) {
      const { c, draft: d } = await draft();
      if (status === 'DRAFT') return { c, id: d.id as number };
      if (status === 'CANCELLED') {
        await post(`/submissions/${d.id}/cancel`, undefined, c.user.token);
        return { c, id: d.id as number };
      }
      const submitted = await post(`/submissions/${d.id}/submit`, undefined, c.user.token);
      expect(submitted.body.status).toBe('SUBMITTED');
      if (status === 'APPROVED' || status === 'REJECTED') {
        await decide(submitted.body.portal_instance_id, status === 'APPROVED' ? 'approved' : 'rejected', 'Noter mangler');
        expect((await get(`/submissions/${d.id}`, c.user.token)).body.status).toBe(status);
      }
      return { c, id: d.id as number };
    }

    it.each<[string, number, string]>([
      ['DRAFT', 200, 'SUBMITTED'],
      ['SUBMITTED', 400, 'SUBMITTED'],
      ['APPROVED', 400, 'APPROVED'],
      ['REJECTED', 400, 'REJECTED'],
      ['CANCELLED', 400, 'CANCELLED'],
    ])('"submit: DRAFT only; else 400": from %s → %i, status %s', async (from, status, after) => {
      const { c, id } = await inStatus(from);
      const res = await post(`/submissions/${id}/submit`, undefined, c.user.token);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      if (status === 400) expect(res.body).toEqual({ error: expect.stringContaining(`is ${from}: only DRAFT can be submitted`), status: 400 });
      expect((await get(`/submissions/${id}`, c.user.token)).body.status).toBe(after);
    });

    it.each<[string, number, string]>([
      ['DRAFT', 200, 'CANCELLED'],
      ['SUBMITTED', 200, 'CANCELLED'],
      ['APPROVED', 400, 'APPROVED'],
      ['REJECTED', 400, 'REJECTED'],
      ['CANCELLED', 400, 'CANCELLED'],
    ])('"cancel: DRAFT or SUBMITTED only": from %s → %i, status %s', async (from, status, after) => {
      const { c, id } = await inStatus(from);
      const res = await post(`/submissions/${id}/cancel`, undefined, c.user.token);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      if (status === 400) expect(res.body).toEqual({ error: expect.stringContaining(`is ${from}: only DRAFT or SUBMITTED can be cancelled`), status: 400 });
      expect((await get(`/submissions/${id}`, c.user.token)).body.status).toBe(after);
    });

    it('cancelling a SUBMITTED one cancels the portal instance too', async () => {
      const { c, id } = await inStatus('SUBMITTED');
      const instance = (await get(`/submissions/${id}`, c.user.token)).body.portal_instance_id;
      await post(`/submissions/${id}/cancel`, undefined, c.user.token);
      expect((await portal().get<any>(`/filings/${instance}`)).body.status).toBe('cancelled');
    });

    it('"APPROVED or REJECTED": a rejection’s reason is the error_message', async () => {
      const { c, id } = await inStatus('REJECTED');
      expect((await get(`/submissions/${id}`, c.user.token)).body).toMatchObject({ status: 'REJECTED', error_message: 'Noter mangler' });
    });
  });

  describe('notes', () => {
    it('PUT replaces the notes (text and table bodies); GET answers them as stored', async () => {
      const { c, draft: d } = await draft();
      const notes = [
        { note_number: 1, key: 'accounting_principles', title: 'Regnskapsprinsipper', body_type: 'text', body: 'Tekst.', footer_text: 'Fotnote' },
        { note_number: 2, key: 'fixed_assets', title: 'Driftsmidler', body_type: 'table', body: { columns: ['Gruppe', 'Beløp'], rows: [['Maskiner', '32 000,00']] } },
      ];
      const put = await app.http('PUT', `/api/v2/yearly-accounts/submissions/${d.id}/notes`, { token: c.user.token, body: notes });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const expected = [notes[0], { ...notes[1], footer_text: null }];
      expect(put.body).toEqual(expected);
      expect((await get(`/submissions/${d.id}/notes`, c.user.token)).body).toEqual(expected);
    });

    it('spec 002 "Note object: note_number, key, title, …": a key of any form is taken (the spec gives none), unique in the list', async () => {
      const { c, draft: d } = await draft();
      const notes = [
        { note_number: 1, key: 'Note-1 (Prinsipper)', title: 'Regnskapsprinsipper', body_type: 'text', body: 'Tekst.' },
        { note_number: 2, key: 'ÅRSBERETNING', title: 'Årsberetning', body_type: 'text', body: 'Tekst.' },
      ];
      const put = await app.http('PUT', `/api/v2/yearly-accounts/submissions/${d.id}/notes`, { token: c.user.token, body: notes });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(put.body.map((n: { key: string }) => n.key)).toEqual(['Note-1 (Prinsipper)', 'ÅRSBERETNING']);
      const twice = await app.http('PUT', `/api/v2/yearly-accounts/submissions/${d.id}/notes`, { token: c.user.token, body: [notes[0], { ...notes[1], key: notes[0].key }] });
      expect(twice.status).toBe(400);
      expect(twice.body.error).toMatch(/1\.key: key Note-1 \(Prinsipper\) is used by another note/);
    });

    it.each<[string, unknown, RegExp]>([
      ['body_type not text or table', [{ note_number: 1, key: 'a', title: 'A', body_type: 'html', body: 'x' }], /0\.body_type/],
      ['a text body that is not a string', [{ note_number: 1, key: 'a', title: 'A', body_type: 'text', body: { columns: [], rows: [] } }], /0\.body: must be a string when body_type is text/],
      ['a table row with the wrong number of cells', [{ note_number: 1, key: 'a', title: 'A', body_type: 'table', body: { columns: ['x', 'y'], rows: [['1']] } }], /0\.body\.rows\.0: must have 2 cells/],
      ['a table body without columns', [{ note_number: 1, key: 'a', title: 'A', body_type: 'table', body: { rows: [] } }], /0\.body\.columns/],
      ['title missing', [{ note_number: 1, key: 'a', body_type: 'text', body: 'x' }], /0\.title: is required/],
      ['a duplicate note_number', [{ note_number: 1, key: 'a', title: 'A', body_type: 'text', body: 'x' }, { note_number: 1, key: 'b', title: 'B', body_type: 'text', body: 'y' }], /1\.note_number: note_number 1 is used/],
      ['an object instead of an array', { notes: [] }, /JSON array/],
    ])('PUT: %s → 400 naming the field', async (_what, body, error) => {
      const { c, draft: d } = await draft();
      const res = await app.http('PUT', `/api/v2/yearly-accounts/submissions/${d.id}/notes`, { token: c.user.token, body });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(error), status: 400 });
    });

    it('"PUT: DRAFT only else 400": a SUBMITTED one’s notes cannot be edited', async () => {
      const c = await companyWithLedger(app);
      const submitted = (await post('/submissions', { client_account_id: c.account.id, reporting_year: 2024 }, c.user.token)).body;
      const notes = [{ note_number: 1, key: 'a', title: 'A', body_type: 'text', body: 'x' }];
      const res = await app.http('PUT', `/api/v2/yearly-accounts/submissions/${submitted.id}/notes`, { token: c.user.token, body: notes });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining('only a DRAFT’s notes can be edited'), status: 400 } });
    });
  });

  describe('list, get, access', () => {
    it('GET /submissions: the envelope, filtered by client_account_id (a list) and reporting_year; default every eligible account', async () => {
      const { c, draft: d } = await draft();
      const other = await app.seed.tenant();
      await app.seed.grantRole({ userId: c.user.id, clientAccountId: other.account.id, role: 'CA' });
      const second = (await post('/drafts', { client_account_id: other.account.id, reporting_year: 2023 }, c.user.token)).body;
      const all = await get('/submissions', c.user.token);
      expect(all.status).toBe(200);
      expect(all.body).toEqual({ data: [d, second], meta: { page: 1, pages: 1, per_page: 100, records: 2 } });
      expect((await get(`/submissions?client_account_id=${other.account.id}`, c.user.token)).body.data).toEqual([second]);
      expect((await get(`/submissions?client_account_id=${c.account.id},${other.account.id}&reporting_year=2023`, c.user.token)).body.data).toEqual([second]);
      expect((await get('/submissions?order_by=reporting_year&page_size=1&page=2', c.user.token)).body).toEqual({ data: [d], meta: { page: 2, pages: 2, per_page: 1, records: 2 } });
    });

    it('GET /submissions with someone else’s client account → 403; a bad order_by → 400', async () => {
      const other = await app.seed.tenant();
      expect((await get(`/submissions?client_account_id=${company.account.id}`, other.user.token)).status).toBe(403);
      expect((await get('/submissions?order_by=colour')).status).toBe(400);
    });

    it.each(['', '/notes', '/pdf'])('GET /submissions/{id}%s: an unknown id → 404, someone else’s → 403', async (tail) => {
      const { draft: d } = await draft();
      const other = await app.seed.tenant();
      expect((await get(`/submissions/99999999${tail}`, other.user.token)).status).toBe(404);
      expect((await get(`/submissions/${d.id}${tail}`, other.user.token)).body).toEqual({ error: expect.any(String), status: 403 });
    });

    it.each(['/submit', '/cancel'])('POST /submissions/{id}%s: someone else’s → 403; read-only token → 403', async (tail) => {
      const { c, draft: d } = await draft();
      const other = await app.seed.tenant();
      expect((await post(`/submissions/${d.id}${tail}`, undefined, other.user.token)).status).toBe(403);
      expect((await post(`/submissions/${d.id}${tail}`, undefined, c.user.readToken)).status).toBe(403);
    });

    it('POST /drafts: reporting_year missing → 400; someone else’s account → 403', async () => {
      const other = await app.seed.tenant();
      expect(await post('/drafts', { client_account_id: company.account.id })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/reporting_year: is required/), status: 400 } });
      expect((await post('/drafts', { client_account_id: company.account.id, reporting_year: 2024 }, other.user.token)).status).toBe(403);
    });
  });

  describe('the PDF', () => {
    it('application/pdf attachment named with the year: front page, income statement, balance sheet (both with the previous year), notes', async () => {
      const { c, draft: d } = await draft({ ledger: LEDGER });
      const res = await fetch(`${app.url}/api/v2/yearly-accounts/submissions/${d.id}/pdf`, { headers: { authorization: `Bearer ${c.user.token}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/pdf/);
      expect(res.headers.get('content-disposition')).toContain(`arsregnskap-2024-${c.orgNumber}.pdf`);
      const dir = mkdtempSync(join(tmpdir(), 'yearly-pdf-'));
      try {
        const file = join(dir, 'a.pdf');
        writeFileSync(file, Buffer.from(await res.arrayBuffer()));
        const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
        expect(text).toContain('Årsregnskap 2024');
        const org = c.orgNumber!;
        expect(text).toContain(`Org.nr. ${org.slice(0, 3)} ${org.slice(3, 6)} ${org.slice(6)}`);
        expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}/); // Norwegian dates only
        expect(text).toContain('Regnskapsperiode 01.01.2024 – 31.12.2024');
        expect(text).toMatch(/Resultatregnskap[\s\S]*2024\s+2023/);
        expect(text).toMatch(/Årsresultat\s+33 500,25\s+30 000,00/);
        expect(text).toMatch(/Overføringer og disponeringer\s+Overført til\/fra annen egenkapital\s+33 500,25\s+30 000,00\s+Sum overføringer og disponeringer\s+33 500,25\s+30 000,00/);
        expect(text).toMatch(/Balanse[\s\S]*31\.12\.2024\s+31\.12\.2023/);
        expect(text).toMatch(/Maskiner, inventar, transportmidler o\.l\.\s+32 000,00\s+0,00/);
        expect(text).toMatch(/Gjeld til kredittinstitusjoner\s+60 000,00\s+0,00/);
        expect(text).not.toContain('Immaterielle eiendeler'); // zero in both years: left out
        expect(text).toMatch(/Sum eiendeler\s+192 500,25\s+60 000,00/);
        expect(text).toMatch(/Sum egenkapital og gjeld\s+192 500,25\s+60 000,00/);
        expect(text).toContain('Note 1 Regnskapsprinsipper');
        expect(text).toMatch(/Transportmidler, inventar og maskiner\s+0,00\s+40 000,00\s+0,00\s+8 000,00\s+32 000,00/);
        expect(text).toContain('per 31.12.2024 fordringer på aksjonærer');
        expect(text).toContain('Note 6 Lån til aksjonærer');
        expect(text).toMatch(/Side 1 av \d/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('POST /yearly-accounts/annual-allocations', () => {
    const allocate = (c: Company, body: Record<string, unknown>, token = c.user.token) =>
      post('/annual-allocations', { client_account_id: c.account.id, reporting_year: 2024, ...body }, token);

    it('posts the closing entry dated 31 December through the ledger and answers the journal entry; the equity note shows a dividend', async () => {
      const c = await companyWithLedger(app);
      const res = await allocate(c, {
        lines: [
          { account_code: '8960', debit: '23500.25', credit: '0' },
          { account_code: '8920', debit: '10000.00', credit: '0' },
          { account_code: '2050', debit: '0', credit: '23500.25' },
          { account_code: '2800', debit: '0', credit: '10000.00' },
        ],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ client_account_id: c.account.id, description: 'Årsavslutning 2024: disponering av årsresultat', is_draft: false, sequence_number: expect.any(Number), cancelled: null });
      expect(res.body.lines.map((l: any) => [l.posting_date, l.account_code, l.debit, l.credit])).toEqual([
        ['2024-12-31', '8960', '23500.25', '0.00'],
        ['2024-12-31', '8920', '10000.00', '0.00'],
        ['2024-12-31', '2050', '0.00', '23500.25'],
        ['2024-12-31', '2800', '0.00', '10000.00'],
      ]);
      expect((await app.http('GET', `/api/v2/journal-entries/${res.body.id}`, { token: c.user.token })).body.sequence_number).toBe(res.body.sequence_number);
      const after = await preview(c);
      expect(figures(after.body.income_statement).arsresultat[0]).toBe('33500.25');
      expect(figures(after.body.balance_sheet).egenkapital[0]).toBe('83500.25');
      expect(after.body.notes.find((n: any) => n.key === 'equity').body.rows).toEqual([
        ['Egenkapital ved årets begynnelse', '60 000,00'],
        ['Årets resultat', '33 500,25'],
        ['Avsatt utbytte', '-10 000,00'],
        ['Andre endringer', '0,00'],
        ['Egenkapital ved årets slutt', '83 500,25'],
      ]);
      // "the allocation sums to årsresultat": dividends and the transfer, as booked; the check passes
      expect(figures(after.body.income_statement)).toMatchObject({
        avsatt_utbytte: ['10000.00', '0.00'],
        overfort_annen_egenkapital: ['23500.25', '30000.00'],
        sum_overforinger: ['33500.25', '30000.00'],
      });
      expect(figures(after.body.balance_sheet)).toMatchObject({ annen_egenkapital: ['53500.25', '30000.00'], annen_kortsiktig_gjeld: ['10000.00', '0.00'] });
      expect(after.body.checks.find((k: any) => k.key === 'result_allocated')).toMatchObject({ passed: true });
    });

    it('spec 002 "lines (required, at least 2 balanced, each account_code, debit, credit)": an amount a journal line takes is taken (10^13 and more too)', async () => {
      const c = await companyWithLedger(app, { ledger: [] });
      const big = '123456789012345.67';
      const res = await allocate(c, { lines: [{ account_code: '8960', debit: big, credit: '0' }, { account_code: '2050', debit: '0', credit: big }] });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.lines.map((l: any) => [l.debit, l.credit])).toEqual([[big, '0.00'], ['0.00', big]]);
    });

    it('a description of one’s own is kept', async () => {
      const c = await companyWithLedger(app, { ledger: [] });
      const res = await allocate(c, { description: 'Overføring', lines: [{ account_code: '8960', debit: '1', credit: '0' }, { account_code: '2050', debit: '0', credit: '1' }] });
      expect(res.body.description).toBe('Overføring');
    });

    it.each<[string, unknown, RegExp]>([
      ['unbalanced lines', [{ account_code: '8960', debit: '100', credit: '0' }, { account_code: '2050', debit: '0', credit: '90' }], /lines: lines do not balance: debit 100.00, credit 90.00/],
      ['fewer than 2 lines', [{ account_code: '8960', debit: '0', credit: '0' }], /lines: an allocation needs at least two lines/],
      ['a line with both debit and credit', [{ account_code: '8960', debit: '5', credit: '5' }, { account_code: '2050', debit: '0', credit: '0' }], /lines\.0\.credit: exactly one of debit and credit must be non-zero/],
      ['an unknown account', [{ account_code: '9999', debit: '5', credit: '0' }, { account_code: '2050', debit: '0', credit: '5' }], /9999/],
      ['lines missing', undefined, /lines: is required/],
    ])('%s → 400', async (_what, lines, error) => {
      const c = await companyWithLedger(app, { ledger: [] });
      const res = await allocate(c, lines === undefined ? {} : { lines });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(error), status: 400 });
      expect(await app.seed.prisma.journalEntry.count({ where: { clientAccountId: c.account.id } })).toBe(0);
    });

    it('someone else’s client account → 403', async () => {
      const other = await app.seed.tenant();
      const res = await allocate(company, { lines: [{ account_code: '8960', debit: '1', credit: '0' }, { account_code: '2050', debit: '0', credit: '1' }] }, other.user.token);
      expect(res.status).toBe(403);
    });
  });

  describe('GraphQL and MCP', () => {
    it('GraphQL: the preview, a draft and its notes', async () => {
      const c = await companyWithLedger(app);
      const res = await app.gql(c.user.token, /* GraphQL */ `
        mutation($input: CreateYearlyAccountInput!) { createYearlyAccountDraft(input: $input) { id status reportingYear } }`, { input: { clientAccountId: c.account.id, reportingYear: 2024 } });
      expect(res.errors).toBeUndefined();
      expect(res.data.createYearlyAccountDraft).toMatchObject({ status: 'DRAFT', reportingYear: 2024 });
      const read = await app.gql(c.user.token, /* GraphQL */ `
        query($a: Int!, $id: Int!) {
          yearlyAccountPreview(clientAccountId: $a, reportingYear: 2024) { incomeStatement { key amount previousAmount } }
          yearlyAccountNotes(id: $id) { noteNumber key bodyType }
        }`, { a: c.account.id, id: res.data.createYearlyAccountDraft.id });
      expect(read.errors).toBeUndefined();
      expect(read.data.yearlyAccountPreview.incomeStatement.find((l: any) => l.key === 'arsresultat')).toEqual({ key: 'arsresultat', amount: '33500.25', previousAmount: '30000.00' });
      expect(read.data.yearlyAccountNotes[0]).toEqual({ noteNumber: 1, key: 'accounting_principles', bodyType: 'text' });
    });

    it('MCP: the tools exist; preview and the notes PUT (an array body) through the tools', async () => {
      const { c, draft: d } = await draft();
      const client = new Client({ name: 'yearly-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp?modules=yearly-accounts`), { requestInit: { headers: { authorization: `Bearer ${c.user.token}` } } }));
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toEqual(expect.arrayContaining([
          'preview_yearly_accounts', 'list_yearly_account_submissions', 'get_yearly_account_submission', 'create_yearly_account_draft', 'create_yearly_account_submission',
          'submit_yearly_account', 'cancel_yearly_account', 'get_yearly_account_pdf', 'get_yearly_account_notes', 'update_yearly_account_notes', 'create_annual_allocation',
        ]));
        const previewed = await client.callTool({ name: 'preview_yearly_accounts', arguments: { client_account_id: c.account.id, reporting_year: 2023 } });
        expect(JSON.parse((previewed.content as { text: string }[])[0].text).balance_sheet.at(-1)).toMatchObject({ key: 'sum_egenkapital_og_gjeld', amount: '0.00' });
        const put = await client.callTool({ name: 'update_yearly_account_notes', arguments: { id: d.id, notes: [{ note_number: 1, key: 'x', title: 'X', body_type: 'text', body: 'Fra MCP' }] } });
        expect(put.isError, JSON.stringify(put.content)).toBeFalsy();
        expect((await get(`/submissions/${d.id}/notes`, c.user.token)).body.map((n: any) => n.body)).toEqual(['Fra MCP']);
      } finally {
        await client.close();
      }
    });
  });
});
