import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { seedReportFixture } from './fixture.ts';

// spec 001 "Reports": the six JSON reports on a hand-computed fixture, their parameters, defaults and
// the report errors in the v2 envelope (spec 000 "Errors").
//
// The fixture is in ./fixture.ts.
describe.each(targets())('reports REST (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let customer: number;
  let supplier: number;
  let project: number;
  let department: number;

  beforeAll(async () => {
    app = await startTestApp(target);
    ({ t, customer, supplier, project, department } = await seedReportFixture(app));
    other = await app.seed.tenant();
  });
  afterAll(() => app?.close());

  const get = (path: string, qs = '', options: { token?: string; accept?: string } = {}) =>
    app.http('GET', `/api/v2/reports/${path}?client_account_id=${t.account.id}${qs ? `&${qs}` : ''}`, {
      token: options.token ?? t.user.token,
      headers: options.accept ? { accept: options.accept } : undefined,
    });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const byCode = (rows: any[]): Record<string, any> => Object.fromEntries(rows.map((r) => [r.account_code, r]));
  const Q1 = 'date_from=2026-01-01&date_to=2026-03-31';

  describe('trial balance', () => {
    it('outgoing_balance = incoming_balance + debit − credit, hand-computed, drafts left out and cancellations included by default', async () => {
      const res = await get('trial-balance', Q1);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const rows = byCode(res.body);
      const figures = (code: string) => {
        const r = rows[code];
        return r && [r.incoming_balance, r.debit, r.credit, r.outgoing_balance];
      };
      expect(figures('1500')).toEqual(['5000.00', '12500.00', '12500.00', '5000.00']);
      expect(figures('1920')).toEqual(['100000.00', '12500.00', '15899.00', '96601.00']);
      expect(figures('2400')).toEqual(['0.00', '0.00', '10000.00', '-10000.00']);
      expect(figures('2700')).toEqual(['0.00', '0.00', '2500.00', '-2500.00']);
      expect(figures('2710')).toEqual(['0.00', '2000.00', '0.00', '2000.00']);
      // a result account starts the year at zero: last year's 5000 is not incoming
      expect(figures('3000')).toEqual(['0.00', '0.00', '10000.00', '-10000.00']);
      expect(figures('6300')).toEqual(['0.00', '15000.00', '0.00', '15000.00']);
      expect(figures('6540')).toEqual(['0.00', '8000.00', '0.00', '8000.00']);
      expect(figures('6900')).toEqual(['0.00', '899.00', '0.00', '899.00']);
      // 2000 (share capital, -100000 incoming) has no movement in the period: not in the JSON
      expect(Object.keys(rows).sort()).toEqual(['1500', '1920', '2400', '2700', '2710', '3000', '6300', '6540', '6900']);
    });

    it('every row has the documented fields: grouping (three levels), account_id, account_code, account_name, the four figures and relation_*', async () => {
      const res = await get('trial-balance', Q1);
      const row = byCode(res.body)['1500'];
      expect(Object.keys(row).sort()).toEqual(
        ['account_code', 'account_id', 'account_name', 'credit', 'debit', 'grouping', 'incoming_balance', 'outgoing_balance', 'relation_id', 'relation_name', 'relation_type'].sort(),
      );
      expect(row.grouping).toEqual({ level_1_code: '1', level_1_name: 'Eiendeler', level_2_code: '14-19', level_2_name: 'Omløpsmidler', level_3_code: '15', level_3_name: 'Kortsiktige fordringer' });
      expect(typeof row.account_id).toBe('number');
      expect(row.relation_type).toBeNull();
    });

    it('the trial balance nets to 0.00: total debit = total credit, and outgoing − incoming totals agree', async () => {
      const rows = (await get('trial-balance', Q1)).body as { debit: string; credit: string; incoming_balance: string; outgoing_balance: string }[];
      const cents = (f: (r: (typeof rows)[number]) => string) => rows.reduce((s, r) => s + BigInt(f(r).replace('.', '')), 0n);
      expect(cents((r) => r.debit)).toBe(cents((r) => r.credit));
      expect(cents((r) => r.outgoing_balance) - cents((r) => r.incoming_balance)).toBe(0n);
    });

    it('include_drafts=true adds the draft; include_cancelled=false leaves out the cancelled entry and its reversal', async () => {
      const drafts = byCode((await get('trial-balance', `${Q1}&include_drafts=true`)).body);
      expect([drafts['6900'].debit, drafts['6900'].credit]).toEqual(['1399.00', '0.00']);
      const live = byCode((await get('trial-balance', `${Q1}&include_cancelled=false`)).body);
      expect(live['6900']).toBeUndefined();
      expect([live['1920'].debit, live['1920'].credit]).toEqual(['12500.00', '15000.00']);
    });

    it('account_codes takes codes and ranges', async () => {
      const rows = (await get('trial-balance', `${Q1}&account_codes=1500,2000-2799`)).body as { account_code: string }[];
      expect(rows.map((r) => r.account_code)).toEqual(['1500', '2400', '2700', '2710']);
    });

    it('group_by_dimension gives a row per account and dimension value with relation_type, relation_id and relation_name', async () => {
      const rows = (await get('trial-balance', `${Q1}&group_by_dimension=department`)).body as Record<string, unknown>[];
      const dept = rows.find((r) => r.account_code === '6540')!;
      expect(dept).toMatchObject({ relation_type: 'department', relation_id: department, relation_name: 'Butikk', debit: '8000.00' });
      expect(rows.find((r) => r.account_code === '1920')).toMatchObject({ relation_type: 'department', relation_id: null, relation_name: null });
    });

    it('spec 001 "JSON always omits zero-movement accounts": an account with only an incoming balance is not in the JSON, whatever include_zero_movement says', async () => {
      for (const qs of [Q1, `${Q1}&include_zero_movement=true`, `${Q1}&include_zero_movement=false`]) {
        const res = await get('trial-balance', qs);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const rows = byCode(res.body);
        // 2000 carries -100000.00 from 2025 and has no line in Q1; 1920 carries 100000.00 and moved
        expect(rows['2000'], qs).toBeUndefined();
        expect(rows['1920'].incoming_balance).toBe('100000.00');
        expect(Object.keys(rows)).toHaveLength(9);
      }
      // nothing is posted between 6 and 19 February: every account carries an incoming balance, none is listed
      const feb = byCode((await get('trial-balance', 'date_from=2026-02-06&date_to=2026-02-19')).body);
      expect(Object.keys(feb)).toEqual([]);
    });

    it('free_text selects lines by their or their entry’s description', async () => {
      const rows = byCode((await get('trial-balance', `${Q1}&free_text=husleie`)).body);
      expect(Object.keys(rows).sort()).toEqual(['1920', '6300']);
      expect([rows['1920'].debit, rows['1920'].credit]).toEqual(['0.00', '15000.00']);
    });

    it.each([
      ['date_from is required', 'date_to=2026-03-31'],
      ['date_to is required', 'date_from=2026-01-01'],
      ['an unrecognised group_by_dimension', `${Q1}&group_by_dimension=customer`],
      ['a dimensions item that is no type:id pair', `${Q1}&dimensions=customer:1`],
      ['a dimensions id past a 32-bit integer (no id; it was a 500)', `${Q1}&dimensions=project:9999999999`],
      ['date_to before date_from', 'date_from=2026-03-01&date_to=2026-01-01'],
    ])('400 common.validation_error in the v2 envelope: %s', async (_rule, qs) => {
      const res = await get('trial-balance', qs);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('common.validation_error');
      expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
      expect(typeof res.body.error.message).toBe('string');
    });
  });

  describe('balance sheet', () => {
    it('balance-sheet accounts with their balance (a number) on report_date, the unclosed result as 2050, and the rows net to zero', async () => {
      const res = await get('balance-sheet', 'report_date=2026-03-31');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const rows = byCode(res.body);
      expect(Object.fromEntries(Object.entries(rows).map(([k, r]) => [k, r.balance]))).toEqual({
        '1500': 5000,
        '1920': 96601,
        '2000': -100000,
        '2050': 8899,
        '2400': -10000,
        '2700': -2500,
        '2710': 2000,
      });
      expect(Object.keys(rows['1920']).sort()).toEqual(['account_code', 'account_name', 'balance', 'grouping']);
      // assets = equity + liabilities including the period result
      const assets = (res.body as { account_code: string; balance: number }[]).filter((r) => r.account_code.startsWith('1')).reduce((s, r) => s + r.balance * 100, 0);
      const claims = (res.body as { account_code: string; balance: number }[]).filter((r) => r.account_code.startsWith('2')).reduce((s, r) => s + r.balance * 100, 0);
      expect(Math.round(assets + claims)).toBe(0);
    });

    it('report_date defaults to today; an earlier date leaves out later postings', async () => {
      const today = byCode((await get('balance-sheet')).body);
      // the reversal (posted today) undoes the cancelled 899
      expect(today['1920'].balance).toBe(97500);
      const dec = byCode((await get('balance-sheet', 'report_date=2025-12-31')).body);
      expect(dec['1920'].balance).toBe(100000);
      expect(dec['1500'].balance).toBe(5000);
    });

    it('dimensions filters the lines: businesspartner:<customer> leaves 1500 alone', async () => {
      const rows = (await get('balance-sheet', `report_date=2026-03-31&dimensions=businesspartner:${customer}`)).body as { account_code: string; balance: number }[];
      expect(rows.map((r) => [r.account_code, r.balance])).toEqual([['1500', 5000]]);
    });
  });

  describe('income statement', () => {
    it('result accounts with period_debit_movements keyed "1" to "12", all twelve always present', async () => {
      const res = await get('income-statement', Q1);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const rows = byCode(res.body);
      const zero = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [String(i + 1), '0.00']));
      expect(rows['3000'].period_debit_movements).toEqual({ ...zero, '1': '-10000.00' });
      expect(rows['6540'].period_debit_movements).toEqual({ ...zero, '2': '8000.00' });
      expect(rows['6300'].period_debit_movements).toEqual({ ...zero, '3': '15000.00' });
      expect(Object.keys(rows).sort()).toEqual(['3000', '6300', '6540', '6900']);
      expect(rows['3000'].grouping).toMatchObject({ level_1_code: '3-7', level_2_code: '3', level_2_name: 'Driftsinntekter', level_3_code: '30' });
    });

    it('date_from defaults to 1 January of the current year and date_to to today', async () => {
      const res = await get('income-statement');
      expect(res.status).toBe(200);
      const thisYear = new Date().getUTCFullYear();
      const rows = byCode(res.body);
      if (thisYear === 2026) expect(rows['3000'].period_debit_movements['1']).toBe('-10000.00');
      else expect(rows['3000']).toBeUndefined();
    });

    it('include_drafts=true adds the draft; free_text selects lines by description', async () => {
      const drafts = byCode((await get('income-statement', `${Q1}&include_drafts=true`)).body);
      expect(drafts['6900'].period_debit_movements['3']).toBe('1399.00');
      const rent = (await get('income-statement', `${Q1}&free_text=HUSLEIE`)).body as { account_code: string }[];
      expect(rent.map((r) => r.account_code)).toEqual(['6300']);
    });

    it('with date_to alone, date_from is 1 January of date_to’s year (not of this year, which could lie after it)', async () => {
      const res = await get('income-statement', 'date_to=2025-12-31');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(byCode(res.body)['3000'].period_debit_movements['6']).toBe('-5000.00');
      const ledger = await get('general-ledger', 'date_to=2025-12-31&account_codes=1500');
      expect(ledger.body.data.map((r: { posting_date: string }) => r.posting_date)).toEqual(['2025-06-01']);
    });

    it('dimensions project:<id> and group_by_dimension=project', async () => {
      const filtered = (await get('income-statement', `${Q1}&dimensions=project:${project}`)).body as { account_code: string }[];
      expect(filtered.map((r) => r.account_code)).toEqual(['3000']);
      const grouped = (await get('income-statement', `${Q1}&group_by_dimension=project`)).body as Record<string, unknown>[];
      expect(grouped.find((r) => r.account_code === '3000')).toMatchObject({ relation_type: 'project', relation_id: project, relation_name: 'Baristakurs' });
    });
  });

  describe('general ledger and the sub-ledgers', () => {
    it('related_object: the booked document with its due_date and payment_ref', async () => {
      const own = await app.seed.tenant();
      const doc = await app.db.prisma.document.create({
        data: { clientAccountId: own.account.id, documentType: 'INV', documentNumber: '10042', documentDate: new Date('2026-02-01'), dueDate: new Date('2026-02-15'), paymentRef: '0001004205' },
      });
      const line = (account_code: string, debit: string, credit: string, extra = {}) => ({ posting_date: '2026-02-01', account_code, debit, credit, ...extra });
      const posted = await app.http('POST', '/api/v2/journal-entries/', {
        token: own.user.token,
        body: { client_account_id: own.account.id, description: 'Faktura 10042', relation_type: 'document', relation_id: doc.id, lines: [line('1920', '100.00', '0'), line('3000', '0', '100.00')] },
      });
      expect(posted.status, JSON.stringify(posted.body)).toBe(201);
      const res = await app.http('GET', `/api/v2/reports/general-ledger?client_account_id=${own.account.id}&${Q1}`, { token: own.user.token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data[0].journal_entry.related_object).toMatchObject({ id: doc.id, document_number: '10042', document_date: '2026-02-01', due_date: '2026-02-15', payment_ref: '0001004205' });
    });

    it('{meta, data}: lines by account, each with its account grouping and journal entry; sequence_number only inside journal_entry', async () => {
      const res = await get('general-ledger', `${Q1}&per_page=5`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.meta).toEqual({ records: 12, per_page: 5, page: 1, pages: 3 });
      const [first] = res.body.data;
      expect(Object.keys(first).sort()).toEqual(
        ['account_code', 'account_id', 'credit', 'currency_code', 'debit', 'debit_amount', 'description', 'dimensions', 'exchange_rate', 'grouping', 'id', 'journal_entry', 'line_id', 'posting_date', 'reconciled_amount', 'tax_amount', 'tax_base_amount', 'tax_code'].sort(),
      );
      expect(first).toMatchObject({ account_code: '1500', posting_date: '2026-01-10', debit: '12500.00', credit: '0.00', debit_amount: '12500.00', currency_code: 'NOK' });
      expect(first.grouping).toEqual({ level_1_code: '1500', level_1_name: expect.any(String), incoming_balance: '5000.00', outgoing_balance: '5000.00', movement: '0.00' });
      expect(first.dimensions).toEqual([{ type: 'businesspartner', id: customer, name: 'Kafé Ærlig & Sønn AS' }]);
      expect(Object.keys(first.journal_entry).sort()).toEqual(['cancelled', 'created_by', 'description', 'id', 'is_draft', 'related_object', 'sequence_number', 'voucher_id'].sort());
      expect(first.journal_entry).toMatchObject({ description: 'Faktura 1001', is_draft: false, cancelled: null, related_object: null });
      expect(first.journal_entry.created_by).toEqual({ id: t.user.id, full_name: expect.any(String) });
      expect(first.sequence_number).toBeUndefined();
    });

    it('pages of any size put together are the whole ledger in the same order (pages cross account boundaries)', async () => {
      const whole = (await get('general-ledger', Q1)).body.data.map((r: { id: number }) => r.id);
      for (const perPage of [1, 3, 5]) {
        const ids: number[] = [];
        for (let page = 1; page <= Math.ceil(whole.length / perPage) + 1; page++) {
          const res = await get('general-ledger', `${Q1}&per_page=${perPage}&page=${page}`);
          ids.push(...res.body.data.map((r: { id: number }) => r.id));
        }
        expect(ids).toEqual(whole);
      }
    });

    it('page 1 / per_page 100 by default; tax_codes and include_cancelled filter the lines', async () => {
      const all = await get('general-ledger', Q1);
      expect(all.body.meta).toEqual({ records: 12, per_page: 100, page: 1, pages: 1 });
      const taxed = await get('general-ledger', `${Q1}&tax_codes=3`);
      expect(taxed.body.data.map((r: { account_code: string; tax_code: string }) => [r.account_code, r.tax_code])).toEqual([['3000', '3']]);
      const live = await get('general-ledger', `${Q1}&include_cancelled=false`);
      expect(live.body.meta.records).toBe(10);
      const withReversal = await get('general-ledger', 'date_from=2026-01-01&date_to=2100-01-01&account_codes=6900');
      expect(withReversal.body.data.map((r: { journal_entry: { cancelled: string } }) => r.journal_entry.cancelled)).toEqual(['Y', 'C']);
    });

    it('accounts-receivable: account 1500 only, optionally one business partner; accounts-payable: 2400', async () => {
      const ar = await get('accounts-receivable', `${Q1}&business_partner_id=${customer}`);
      expect(ar.status, JSON.stringify(ar.body)).toBe(200);
      expect(ar.body.data.map((r: { account_code: string; debit: string; credit: string }) => [r.account_code, r.debit, r.credit])).toEqual([
        ['1500', '12500.00', '0.00'],
        ['1500', '0.00', '12500.00'],
      ]);
      const ap = await get('accounts-payable', Q1);
      expect(ap.body.data.map((r: { account_code: string; credit: string }) => [r.account_code, r.credit])).toEqual([['2400', '10000.00']]);
      expect(ap.body.meta).toEqual({ records: 1, per_page: 100, page: 1, pages: 1 });
    });

    it('include_reconciled=false leaves out fully reconciled lines (the paid invoice and its payment)', async () => {
      const open = await get('accounts-receivable', `${Q1}&include_reconciled=false`);
      expect(open.body.meta.records).toBe(0);
      const all = await get('accounts-receivable', Q1);
      expect(all.body.data.map((r: { reconciled_amount: string }) => r.reconciled_amount)).toEqual(['12500.00', '12500.00']);
      const ledger = await get('general-ledger', `${Q1}&include_reconciled=false&account_codes=1500`);
      expect(ledger.body.meta.records).toBe(0);
      // the grouping's incoming balance is still the account's: only the listed lines are filtered
      const year = await get('general-ledger', 'date_from=2025-01-01&date_to=2026-03-31&include_reconciled=false&account_codes=1500');
      expect(year.body.data.map((r: { posting_date: string }) => r.posting_date)).toEqual(['2025-06-01']);
    });

    it.each(['accounts-payable', 'accounts-receivable'])('%s: date_from and date_to are required (400)', async (path) => {
      for (const qs of ['date_to=2026-03-31', 'date_from=2026-01-01', '']) {
        const res = await get(path, qs);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('common.validation_error');
      }
    });
  });

  describe('money on the wire (spec 000: "Decimal amounts are returned as strings (except where a report row shows a JSON number)")', () => {
    // 1000000000003584.01 has no double: JSON.parse / Number make it 1000000000003584. A line holds
    // less than 10^15 (its debit_fc copy), so each entry books it as two halves on each side.
    const X = '1000000000003584.01';
    const HALVES = ['500000000001792.00', '500000000001792.01'];
    let big: Tenant;
    const of = (path: string, qs: string) => app.http('GET', `/api/v2/reports/${path}?client_account_id=${big.account.id}&${qs}`, { token: big.user.token });

    beforeAll(async () => {
      big = await app.seed.tenant();
      const partner = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: big.account.id, name: 'Storkunde AS', isCustomer: true } })).id;
      const post = async (date: string, debit: string, credit: string) => {
        // 1500 requires a business partner on its lines (the default chart)
        const dimensions = debit === '1500' ? [{ type: 'businesspartner', id: partner }] : [];
        const lines = HALVES.flatMap((half) => [
          { posting_date: date, account_code: debit, debit: half, credit: '0', dimensions },
          { posting_date: date, account_code: credit, debit: '0', credit: half },
        ]);
        const res = await app.http('POST', '/api/v2/journal-entries/', { token: big.user.token, body: { client_account_id: big.account.id, lines } });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
      };
      await post('2025-12-01', '1920', '2000');
      await post('2026-02-01', '1500', '3000');
    });

    it('spec 000 "Decimal amounts are returned as strings": a trial balance line of 1000000000003584.01 answers exactly "1000000000003584.01"', async () => {
      const res = await of('trial-balance', Q1);
      expect(res.status, res.text).toBe(200);
      const rows = byCode(res.body);
      expect(rows['1500']).toMatchObject({ incoming_balance: '0.00', debit: X, credit: '0.00', outgoing_balance: X });
      expect(rows['3000']).toMatchObject({ incoming_balance: '0.00', debit: '0.00', credit: X, outgoing_balance: `-${X}` });
      expect(res.text).toContain(`"debit":"${X}"`);
      // spec 001 "JSON always omits zero-movement accounts": 1920 and 2000 carry X from 2025 and did not move
      expect(Object.keys(rows).sort()).toEqual(['1500', '3000']);
    });

    it('spec 001 balance sheet "balance (number)": the JSON text of balance is exactly 1000000000003584.01', async () => {
      const res = await of('balance-sheet', 'report_date=2026-03-31');
      expect(res.status, res.text).toBe(200);
      // the raw text: JSON.parse would give 1000000000003584
      expect(res.text).toMatch(/"account_code":"1500","account_name":"[^"]*","balance":1000000000003584\.01\}/);
      expect(res.text).toMatch(/"account_code":"1920","account_name":"[^"]*","balance":1000000000003584\.01\}/);
      expect(res.text).toMatch(/"account_code":"2000","account_name":"[^"]*","balance":-1000000000003584\.01\}/);
      // the unclosed result (3000's credit) as 2050
      expect(res.text).toMatch(/"account_code":"2050","account_name":"[^"]*","balance":-1000000000003584\.01\}/);
      expect((res.body as { balance: unknown }[]).every((r) => typeof r.balance === 'number')).toBe(true);
      expect(res.text).not.toContain(`"${X}"`);
    });

    it('spec 000 "Decimal amounts are returned as strings": income statement period_debit_movements, general-ledger and sub-ledger figures keep their øre', async () => {
      const income = await of('income-statement', Q1);
      expect(byCode(income.body)['3000'].period_debit_movements['2']).toBe(`-${X}`);
      expect(byCode(income.body)['3000'].period_debit_movements['1']).toBe('0.00');
      for (const path of ['general-ledger', 'accounts-receivable']) {
        const ledger = await of(path, `${Q1}${path === 'general-ledger' ? '&account_codes=1500' : ''}`);
        expect(ledger.status, ledger.text).toBe(200);
        const [first, second] = ledger.body.data;
        expect(first).toMatchObject({ debit: HALVES[0], credit: '0.00', debit_amount: HALVES[0], exchange_rate: '1.000000', reconciled_amount: '0.00' });
        expect(second).toMatchObject({ debit: HALVES[1], debit_amount: HALVES[1] });
        expect(first.grouping).toMatchObject({ incoming_balance: '0.00', movement: X, outgoing_balance: X });
      }
      const bank = await of('general-ledger', 'date_from=2025-01-01&date_to=2025-12-31&account_codes=1920');
      expect(bank.body.data[0].grouping).toMatchObject({ incoming_balance: '0.00', movement: X, outgoing_balance: X });
    });
  });

  describe('errors', () => {
    it.each(['balance-sheet', 'income-statement', 'trial-balance', 'general-ledger', 'accounts-payable', 'accounts-receivable'])(
      '%s: 403 common.forbidden without client_account_id, and for an account without access',
      async (path) => {
        const missing = await app.http('GET', `/api/v2/reports/${path}?${Q1}`, { token: t.user.token });
        expect(missing.status).toBe(403);
        expect(missing.body.error.code).toBe('common.forbidden');
        const foreign = await get(path, Q1, { token: other.user.token });
        expect(foreign.status).toBe(403);
        expect(foreign.body.error).toMatchObject({ code: 'common.forbidden', request_id: foreign.headers.get('x-request-id') });
      },
    );

    it.each(['balance-sheet', 'income-statement', 'trial-balance', 'general-ledger', 'accounts-payable', 'accounts-receivable'])(
      '%s: 406 common.not_acceptable for an unsupported Accept',
      async (path) => {
        const res = await get(path, Q1, { accept: 'text/csv' });
        expect(res.status).toBe(406);
        expect(res.body.error.code).toBe('common.not_acceptable');
      },
    );

    it('application/json is the default: no Accept and */* answer JSON', async () => {
      for (const accept of [undefined, '*/*', 'application/json']) {
        const res = await get('trial-balance', Q1, { accept });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      }
    });
  });
});
