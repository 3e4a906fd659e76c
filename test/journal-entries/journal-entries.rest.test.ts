import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { bareVoucher } from '../support/vouchers.ts';
import { osloToday } from '../../src/modules/journal-entries/journal-entries.rules.ts';

// spec 001, "Journal entry" and "Journal entries": GET /journal-entries, GET /journal-entries/{id},
// POST /journal-entries/, PUT/PATCH/DELETE /journal-entries/{id}; "States and transitions".
describe.each(targets())('journal entries REST (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let customer: number;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
    await app.seed.prisma.clientAccount.update({ where: { id: t.account.id }, data: { vatLiable: true } });
    customer = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kunde AS', isCustomer: true } })).id;
  });
  afterAll(() => app?.close());

  const line = (account_code: string, debit: string | number, credit: string | number, extra: Record<string, unknown> = {}) => ({
    posting_date: '2026-03-15',
    account_code,
    debit,
    credit,
    ...extra,
  });
  const sale = (extra: Record<string, unknown> = {}) => ({
    client_account_id: t.account.id,
    description: 'Kontantsalg',
    lines: [line('1920', '125.00', 0), line('3000', 0, '100.00', { tax_code: '3' }), line('2700', 0, '25.00')],
    ...extra,
  });
  const post = (body: unknown, token = t.user.token) => app.http('POST', '/api/v2/journal-entries/', { token, body });
  const get = (id: number, qs = '', token = t.user.token) => app.http('GET', `/api/v2/journal-entries/${id}${qs}`, { token });
  const list = (qs: string, token = t.user.token) => app.http('GET', `/api/v2/journal-entries?${qs}`, { token });
  const cancel = (id: number, body: unknown, token = t.user.token) => app.http('PATCH', `/api/v2/journal-entries/${id}`, { token, body });
  const put = (id: number, body: unknown, token = t.user.token) => app.http('PUT', `/api/v2/journal-entries/${id}`, { token, body });
  const del = (id: number, token = t.user.token) => app.http('DELETE', `/api/v2/journal-entries/${id}`, { token });
  const created = async (body: unknown) => {
    const res = await post(body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };

  describe('POST /journal-entries/', () => {
    it('"201 with the entry and default relations": every entry and line field, posted with a sequence number', async () => {
      const res = await post(sale());
      expect(res.status).toBe(201);
      const e = res.body;
      expect(Object.keys(e).sort()).toEqual(
        [
          'id', 'created_at', 'created_by_id', 'updated_at', 'updated_by_id', 'posted_at', 'posted_by_id', 'client_account_id', 'sequence_number',
          'description', 'cancelled', 'cancelled_by_id', 'cancellation_entry_id', 'cancellation_reason', 'is_draft', 'voucher_id', 'relation_type',
          'relation_id', 'relation_number', 'lines',
          // our extension (README "The ledger"): false unless the entry is an opening balance
          'is_opening_balance',
        ].sort(),
      );
      expect(e).toMatchObject({ client_account_id: t.account.id, is_draft: false, is_opening_balance: false, cancelled: null, posted_by_id: t.user.id, created_by_id: t.user.id, description: 'Kontantsalg' });
      expect(e.sequence_number).toBeGreaterThan(0);
      expect(e.posted_at).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(e.lines).toHaveLength(3);
      expect(Object.keys(e.lines[0]).sort()).toEqual(
        [
          'id', 'journal_entry_id', 'line_id', 'posting_date', 'description', 'account_code', 'account_id', 'debit', 'debit_fc', 'credit', 'credit_fc',
          'currency_code', 'currency_id', 'exchange_rate', 'tax_code', 'tax_code_id', 'tax_base_amount', 'tax_base_amount_fc', 'tax_amount', 'tax_amount_fc',
          'tax_line', 'tax_for_line', 'quantity', 'reconciled_amount', 'reconciled_amount_fc', 'external_reconciled_amount', 'dimensions',
        ].sort(),
      );
      expect(e.lines[0]).toMatchObject({
        line_id: 1, posting_date: '2026-03-15', account_code: '1920', debit: '125.00', credit: '0.00', debit_fc: '125.00', credit_fc: '0.00',
        currency_code: 'NOK', exchange_rate: '1.000000', tax_code: null, reconciled_amount: '0.00', dimensions: [],
      });
      expect(typeof e.lines[0].currency_id).toBe('number');
    });

    it('"When a line has a tax code and no tax amounts, fill tax_base_amount and tax_amount from the code\'s rate": 3000 credit 100 with code 3 → base 100.00, tax 25.00; no lines added', async () => {
      const e = await created(sale());
      expect(e.lines).toHaveLength(3);
      const revenue = e.lines.find((l: { account_code: string }) => l.account_code === '3000');
      expect(revenue).toMatchObject({ tax_code: '3', tax_base_amount: '100.00', tax_amount: '25.00' });
      expect(revenue.tax_code_id).toBe(await t.taxCode('3'));
      const vat = e.lines.find((l: { account_code: string }) => l.account_code === '2700');
      expect(vat).toMatchObject({ tax_code: null, tax_base_amount: null, tax_amount: null, credit: '25.00' });
    });

    it('"sequence numbers are unique, increasing and gapless per client account"', async () => {
      const a = await created(sale());
      const d = await created(sale({ is_draft: true }));
      const b = await created(sale());
      expect(d.sequence_number).toBeNull();
      expect(b.sequence_number).toBe(a.sequence_number + 1);
      const o = (await post({ client_account_id: other.account.id, lines: [line('1920', 1, 0), line('3000', 0, 1)] }, other.user.token)).body;
      expect(o.sequence_number).toBe(1);
    });

    type Body = Record<string, unknown>;
    it.each<[string, (b: Body) => Body, string]>([
      ['client_account_id missing', ({ client_account_id: _c, ...b }) => b, 'client_account_id'],
      ['lines missing', ({ lines: _l, ...b }) => b, 'lines'],
      ['id present', (b) => ({ ...b, id: 5 }), 'id'],
      ['posting_date missing', (b) => ({ ...b, lines: [{ account_code: '1920', debit: 1, credit: 0 }, line('3000', 0, 1)] }), 'lines.0.posting_date'],
      ['debit missing', (b) => ({ ...b, lines: [{ posting_date: '2026-03-15', account_code: '1920', credit: 0 }, line('3000', 0, 1)] }), 'lines.0.debit'],
      ['account_code and account_id missing', (b) => ({ ...b, lines: [{ posting_date: '2026-03-15', debit: 1, credit: 0 }, line('3000', 0, 1)] }), 'lines.0.account_code'],
      ['a negative amount', (b) => ({ ...b, lines: [line('1920', '-10', 0), line('3000', '-10', 0)] }), 'lines.0.debit'],
      ['both debit and credit on one line', (b) => ({ ...b, lines: [line('1920', 10, 10), line('3000', 0, 0)] }), 'lines.0.credit'],
      ['three decimals', (b) => ({ ...b, lines: [line('1920', '10.001', 0), line('3000', 0, '10.001')] }), 'lines.0.debit'],
      ['an unknown account', (b) => ({ ...b, lines: [line('9999', 10, 0), line('3000', 0, 10)] }), 'lines.0.account_code'],
      ['one line', (b) => ({ ...b, lines: [line('1920', 0, 0)] }), 'lines'],
      ['an unknown dimension type', (b) => ({ ...b, lines: [line('1920', 1, 0, { dimensions: [{ type: 'planet', id: 1 }] }), line('3000', 0, 1)] }), 'lines.0.dimensions.0.type'],
    ])('"Create 400": %s', async (_what, change, field) => {
      const res = await post(change(sale()));
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining(field), status: 400 });
    });

    it('"Create 400 (missing body)"', async () => {
      const res = await app.http('POST', '/api/v2/journal-entries/', { token: t.user.token });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining('is required'), status: 400 });
    });

    it('"Lines must balance in the accounting currency … 400 naming the difference"', async () => {
      const res = await post(sale({ lines: [line('1920', '125.00', 0), line('3000', 0, '100.00'), line('2700', 0, '24.99')] }));
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('difference 0.01');
    });

    it('"Create 400 (… validation …)", never a 500: a line of 10^15 NOK, whose debit_fc copy has no room, or a rate past 10^12 from tiny _fc amounts', async () => {
      const big = await post(sale({ lines: [line('1920', '1000000000003584.01', 0), line('2000', 0, '1000000000003584.01')] }));
      expect(big.status, JSON.stringify(big.body)).toBe(400);
      expect(big.body.error).toMatch(/lines\.0\.debit: gives debit_fc 1000000000003584\.010: the amount in the line's currency must be less than 10\^15/);
      expect(big.body.error).toMatch(/lines\.1\.credit: gives credit_fc/);
      const rate = await post(sale({ lines: [line('1920', '100000000000000.00', 0, { currency_code: 'EUR', debit_fc: '0.01' }), line('2000', 0, '100000000000000.00')] }));
      expect(rate.status, JSON.stringify(rate.body)).toBe(400);
      expect(rate.body.error).toMatch(/lines\.0\.exchange_rate: .* must be less than 10\^12/);
      // the largest that fits is taken
      expect((await post(sale({ lines: [line('1920', '999999999999999.99', 0), line('2000', 0, '999999999999999.99')] }))).status).toBe(201);
    });

    it('"unknown or inactive accounts → 400 naming the line"', async () => {
      const acc = await app.seed.prisma.account.create({ data: { clientAccountId: t.account.id, code: '1999', name: 'Gammel', accountType: 'ASSET', isActive: false } });
      const res = await post(sale({ lines: [line('1999', 10, 0), line('3000', 0, 10)] }));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/lines\.0\.account_code: ledger account 1999 is inactive/);
      expect(acc.id).toBeGreaterThan(0);
    });

    it('"Tax code rules (1)": a client account that is not VAT-liable refuses any tax_code (400)', async () => {
      const res = await post({ ...sale(), client_account_id: other.account.id }, other.user.token);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/lines\.1\.tax_code: .*not VAT-liable/);
    });

    it('"Tax code rules (2)": an account with a whitelist accepts an explicit tax_code only from it; lines without tax_code pass', async () => {
      const acc = await app.seed.prisma.account.create({ data: { clientAccountId: t.account.id, code: '3109', name: 'Salg 2', accountType: 'INCOME' } });
      await app.seed.prisma.accountAllowedTaxCode.create({ data: { accountId: acc.id, taxCodeId: await t.taxCode('31') } });
      const bad = await post(sale({ lines: [line('1920', 125, 0), line('3109', 0, 100, { tax_code: '3' }), line('2700', 0, 25)] }));
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/tax code '3' is not allowed on account 3109; allowed: 31/);
      expect((await post(sale({ lines: [line('1920', 115, 0), line('3109', 0, 100, { tax_code: '31' }), line('2700', 0, 15)] }))).status).toBe(201);
      expect((await post(sale({ lines: [line('1920', 100, 0), line('3109', 0, 100)] }))).status).toBe(201);
    });

    it('"currency_code defaults to the account\'s accounting currency"; a foreign line takes _fc amounts and an implied rate', async () => {
      const e = await created(sale({ lines: [line('1940', '1150.00', 0, { currency_code: 'EUR', debit_fc: '100.00' }), line('3000', 0, '1150.00')] }));
      expect(e.lines[0]).toMatchObject({ currency_code: 'EUR', debit_fc: '100.00', exchange_rate: '11.500000' });
      expect(e.lines[1]).toMatchObject({ currency_code: 'NOK', credit_fc: '1150.00' });
    });

    it('"Each referenced record must exist in the same client account (400 otherwise)"', async () => {
      const foreign = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: other.account.id, name: 'Annen' } })).id;
      const res = await post(sale({ lines: [line('1500', 100, 0, { dimensions: [{ type: 'businesspartner', id: foreign }] }), line('3000', 0, 100)] }));
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(`lines.0.dimensions.0.id: business partner ${foreign} does not exist in client account ${t.account.id}`);
    });

    it('"The default chart makes 1500 … require a business partner": 400 naming the line, the account and the missing type', async () => {
      const res = await post(sale({ lines: [line('1500', 100, 0), line('3000', 0, 100)] }));
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('lines.0.dimensions: account 1500 requires a businesspartner dimension');
      const ok = await created(sale({ lines: [line('1500', 100, 0, { dimensions: [{ type: 'businesspartner', id: customer }] }), line('3000', 0, 100)] }));
      expect(ok.lines[0].dimensions).toEqual([{ type: 'businesspartner', id: customer, name: 'Kunde AS' }]);
    });

    it('"voucher_id … a second non-cancelled entry for the same voucher is 409"', async () => {
      const voucher = await bareVoucher(app.db.prisma, t.account.id);
      await created(sale({ voucher_id: voucher }));
      const res = await post(sale({ voucher_id: voucher }));
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: expect.stringContaining(`voucher ${voucher}`), status: 409 });
    });

    it('voucher_id must name a voucher of the client account that is not deleted (400)', async () => {
      const missing = await post(sale({ voucher_id: 424242 }));
      expect(missing).toMatchObject({ status: 400, body: { error: expect.stringContaining('voucher_id: voucher 424242 does not exist'), status: 400 } });
      const theirs = await bareVoucher(app.db.prisma, other.account.id);
      expect((await post(sale({ voucher_id: theirs }))).status).toBe(400);
      const removed = await bareVoucher(app.db.prisma, t.account.id);
      await app.db.prisma.voucher.update({ where: { id: removed }, data: { status: 'DELETED' } });
      expect(await post(sale({ voucher_id: removed }))).toMatchObject({ status: 400, body: { error: expect.stringContaining('is deleted') } });
    });

    it('"403 (no access)" for a client account of someone else', async () => {
      const res = await post({ ...sale(), client_account_id: other.account.id });
      expect(res.status).toBe(403);
    });
  });

  describe('GET /journal-entries', () => {
    it.each([
      ['missing', ''],
      ['invalid', 'client_account_id=abc'],
      ['of another account', () => `client_account_id=${other.account.id}`],
    ])('"list 403 (missing or invalid client_account_id, no access)": %s', async (_w, qs) => {
      const res = await list(typeof qs === 'function' ? qs() : qs);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: expect.any(String), status: 403 });
    });

    it('"include_drafts default false"; "date_from/date_to inclusive on the lines\' posting dates"; "lines and lines.dimensions by default"', async () => {
      const tenant = await app.seed.tenant();
      const mk = (date: string, is_draft = false) =>
        app.http('POST', '/api/v2/journal-entries/', {
          token: tenant.user.token,
          body: { client_account_id: tenant.account.id, is_draft, lines: [line('1920', 10, 0, { posting_date: date }), line('3000', 0, 10, { posting_date: date })] },
        });
      await mk('2026-01-31');
      await mk('2026-02-01');
      await mk('2026-02-28');
      await mk('2026-03-01');
      await mk('2026-02-10', true);
      const q = (qs: string) => app.http('GET', `/api/v2/journal-entries?client_account_id=${tenant.account.id}&${qs}`, { token: tenant.user.token });
      const all = await q('');
      expect(all.body.meta).toEqual({ page: 1, pages: 1, per_page: 100, records: 4 });
      expect(all.body.data.map((e: { sequence_number: number }) => e.sequence_number)).toEqual([1, 2, 3, 4]);
      expect(all.body.data[0].lines[0]).toHaveProperty('dimensions');
      expect(all.body.data[0].lines[0]).not.toHaveProperty('account');
      const feb = await q('date_from=2026-02-01&date_to=2026-02-28');
      expect(feb.body.data.map((e: { lines: { posting_date: string }[] }) => e.lines[0].posting_date)).toEqual(['2026-02-01', '2026-02-28']);
      const drafts = await q('date_from=2026-02-01&date_to=2026-02-28&include_drafts=true');
      expect(drafts.body.meta.records).toBe(3);
      const paged = await q('page=2&per_page=3');
      expect(paged.body.meta).toEqual({ page: 2, pages: 2, per_page: 3, records: 4 });
      const withCreator = await q('with=created_by&per_page=1');
      expect(withCreator.body.data[0].created_by).toMatchObject({ id: tenant.user.id, full_name: 'Test User' });
    });

    it('relation_type and relation_id filter', async () => {
      const e = await created(sale({ relation_type: 'document', relation_id: 777 }));
      const res = await list(`client_account_id=${t.account.id}&relation_type=document&relation_id=777`);
      expect(res.body.data.map((x: { id: number }) => x.id)).toEqual([e.id]);
    });
  });

  describe('GET /journal-entries/{id}', () => {
    it('"Includes lines, lines.dimensions, lines.account, lines.account.mandatory_dimensions"', async () => {
      const e = await created(sale({ lines: [line('1500', 100, 0, { dimensions: [{ type: 'businesspartner', id: customer }] }), line('3000', 0, 100)] }));
      const res = await get(e.id);
      expect(res.status).toBe(200);
      expect(res.body.lines[0].account).toMatchObject({ account_code: '1500', description: 'Kundefordringer', mandatory_dimensions: ['BUSINESS_PARTNER'] });
      expect(res.body.lines[0].dimensions).toEqual([{ type: 'businesspartner', id: customer, name: 'Kunde AS' }]);
    });

    it('"Get 403, 404"', async () => {
      const e = await created(sale());
      expect((await get(e.id, '', other.user.token)).status).toBe(403);
      expect((await get(99999999)).status).toBe(404);
    });
  });

  describe('PUT /journal-entries/{id}', () => {
    it('"Replaces a draft; send all lines; 200"; "client_account_id cannot change"; is_draft false posts it', async () => {
      const d = await created(sale({ is_draft: true }));
      const res = await put(d.id, { ...d, description: 'Endret', lines: [line('1920', 50, 0), line('3000', 0, 50)] });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ id: d.id, description: 'Endret', is_draft: true, sequence_number: null });
      expect(res.body.lines.map((l: { debit: string; credit: string }) => [l.debit, l.credit])).toEqual([['50.00', '0.00'], ['0.00', '50.00']]);
      const moved = await put(d.id, { client_account_id: other.account.id, lines: sale().lines });
      expect(moved.status).toBe(400);
      expect(moved.body.error).toContain('client_account_id: cannot be changed');
      const posted = await put(d.id, { is_draft: false, lines: sale().lines });
      expect(posted.body).toMatchObject({ is_draft: false });
      expect(posted.body.sequence_number).toBeGreaterThan(0);
    });

    it('a draft read with GET can be sent back whole with PUT: read-only entry and line fields are ignored', async () => {
      const d = await created(sale({ is_draft: true, lines: [line('1500', 100, 0, { dimensions: [{ type: 'businesspartner', id: customer }] }), line('3000', 0, 100)] }));
      const read = (await get(d.id)).body;
      const res = await put(d.id, { ...read, description: 'Sendt tilbake' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.description).toBe('Sendt tilbake');
      expect(res.body.lines.map((l: { account_code: string; debit: string; dimensions: unknown }) => [l.account_code, l.debit, l.dimensions])).toEqual(
        read.lines.map((l: { account_code: string; debit: string; dimensions: unknown }) => [l.account_code, l.debit, l.dimensions]),
      );
      const unknown = await put(d.id, { ...read, lines: read.lines.map((l: object) => ({ ...l, colour: 'red' })) });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toContain('lines.0.colour: is not a known field');
    });

    it('"Update 400 (missing body, validation, … tax rules)"', async () => {
      const d = await created(sale({ is_draft: true }));
      const empty = await app.http('PUT', `/api/v2/journal-entries/${d.id}`, { token: t.user.token });
      expect(empty.status).toBe(400);
      expect(empty.body.error).toContain('lines: is required');
      const unbalanced = await put(d.id, { lines: [line('1920', 10, 0), line('3000', 0, 9)] });
      expect(unbalanced.status).toBe(400);
      expect(unbalanced.body.error).toContain('difference 1.00');
      const o = (await post({ client_account_id: other.account.id, is_draft: true, lines: [line('1920', 1, 0), line('3000', 0, 1)] }, other.user.token)).body;
      const taxed = await app.http('PUT', `/api/v2/journal-entries/${o.id}`, { token: other.user.token, body: { lines: [line('1920', 1, 0), line('3000', 0, 1, { tax_code: '3' })] } });
      expect(taxed.status).toBe(400);
      expect(taxed.body.error).toMatch(/lines\.1\.tax_code: .*not VAT-liable/);
    });

    it('"Update 400 (… entry not a draft)"', async () => {
      const e = await created(sale());
      const res = await put(e.id, { lines: sale().lines });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('not a draft');
    });
  });

  describe('PATCH /journal-entries/{id} (cancel)', () => {
    it('"a posted entry becomes cancelled \'Y\' with cancelled_by_id and cancellation_entry_id, and a reversal entry (\'C\') with debits and credits swapped is posted on the current date"', async () => {
      const e = await created(sale());
      const res = await cancel(e.id, { cancelled: 'Y', cancellation_reason: 'Feilføring' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: e.id, cancelled: 'Y', cancelled_by_id: t.user.id, cancellation_reason: 'Feilføring' });
      const reversal = (await get(res.body.cancellation_entry_id)).body;
      expect(reversal).toMatchObject({ cancelled: 'C', is_draft: false, sequence_number: expect.any(Number) });
      const today = osloToday().toISOString().slice(0, 10);
      expect(reversal.lines.map((l: { account_code: string; debit: string; credit: string; posting_date: string }) => [l.account_code, l.debit, l.credit, l.posting_date])).toEqual(
        e.lines.map((l: { account_code: string; debit: string; credit: string }) => [l.account_code, l.credit, l.debit, today]),
      );
    });

    it.each([['N'], [true], ['y'], [null]])('"only \'Y\' acts (anything else is a 200 no-op)": %j', async (value) => {
      const e = await created(sale());
      const res = await cancel(e.id, { cancelled: value, cancellation_reason: 'x' });
      if (value === null) {
        expect(res.status).toBe(400);
        return;
      }
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: e.id, cancelled: null });
    });

    it('"cancellation_reason required for a posted entry (400)"; "already cancelled → 400"', async () => {
      const e = await created(sale());
      const missing = await cancel(e.id, { cancelled: 'Y' });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toContain('cancellation_reason');
      expect((await cancel(e.id, { cancelled: 'Y', cancellation_reason: 'x' })).status).toBe(200);
      const again = await cancel(e.id, { cancelled: 'Y', cancellation_reason: 'x' });
      expect(again.status).toBe(400);
      expect(again.body.error).toContain('already cancelled');
    });

    it('"A draft is hard-deleted by cancel (200 {})"', async () => {
      const d = await created(sale({ is_draft: true }));
      const res = await cancel(d.id, { cancelled: 'Y' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expect((await get(d.id)).status).toBe(404);
    });

    it('"cancel 403, 404"', async () => {
      const e = await created(sale());
      expect((await cancel(e.id, { cancelled: 'Y', cancellation_reason: 'x' }, other.user.token)).status).toBe(403);
      expect((await cancel(99999999, { cancelled: 'Y', cancellation_reason: 'x' })).status).toBe(404);
    });
  });

  describe('DELETE /journal-entries/{id}', () => {
    it('"Draft only; 200 with {}"; "Delete 400 (not a draft), 403, 404"', async () => {
      const d = await created(sale({ is_draft: true }));
      expect((await del(d.id, other.user.token)).status).toBe(403);
      const res = await del(d.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expect((await del(d.id)).status).toBe(404);
      const e = await created(sale());
      const posted = await del(e.id);
      expect(posted.status).toBe(400);
      expect(posted.body.error).toContain('not a draft');
    });
  });

  describe('locked periods', () => {
    it('"postings dated on or before the client account\'s lock date are refused (create/post 400 naming the date and the lock; cancel 409)"', async () => {
      const tenant = await app.seed.tenant();
      const body = (date: string) => ({ client_account_id: tenant.account.id, lines: [line('1920', 10, 0, { posting_date: date }), line('3000', 0, 10, { posting_date: date })] });
      const before = await app.http('POST', '/api/v2/journal-entries/', { token: tenant.user.token, body: body('2026-01-15') });
      expect(before.status).toBe(201);
      await app.seed.prisma.clientAccount.update({ where: { id: tenant.account.id }, data: { lockDate: new Date('2026-01-31T00:00:00Z') } });
      const res = await app.http('POST', '/api/v2/journal-entries/', { token: tenant.user.token, body: body('2026-01-31') });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('lines.0.posting_date: 2026-01-31 is in a locked period: the books are locked up to and including 2026-01-31');
      expect((await app.http('POST', '/api/v2/journal-entries/', { token: tenant.user.token, body: body('2026-02-01') })).status).toBe(201);
      const c = await app.http('PATCH', `/api/v2/journal-entries/${before.body.id}`, { token: tenant.user.token, body: { cancelled: 'Y', cancellation_reason: 'x' } });
      expect(c.status).toBe(409);
      expect(c.body).toEqual({ error: expect.stringContaining('locked period'), status: 409 });
    });
  });
});

describe.each(targets())('journal entries and projects (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  beforeAll(async () => {
    app = await startTestApp(target);
    t = await app.seed.tenant();
  });
  afterAll(() => app?.close());

  it('GET /projects/{id}?with=journal_entries embeds the posted entries with a line on the project; an inactive project takes no new postings (400)', async () => {
    const project = (await app.http('POST', '/api/v2/projects', { token: t.user.token, body: { client_account_id: t.account.id, name: 'Messe 2026' } })).body;
    const entry = (
      await app.http('POST', '/api/v2/journal-entries/', {
        token: t.user.token,
        body: {
          client_account_id: t.account.id,
          lines: [
            { posting_date: '2026-05-01', account_code: '6300', debit: 500, credit: 0, dimensions: [{ type: 'project', id: project.id }] },
            { posting_date: '2026-05-01', account_code: '1920', debit: 0, credit: 500 },
          ],
        },
      })
    ).body;
    expect(entry.lines[0].dimensions).toEqual([{ type: 'project', id: project.id, name: 'Messe 2026' }]);
    const res = await app.http('GET', `/api/v2/projects/${project.id}?with=journal_entries`, { token: t.user.token });
    expect(res.body.journal_entries.map((e: { id: number }) => e.id)).toEqual([entry.id]);
    expect((await app.http('DELETE', `/api/v2/projects/${project.id}`, { token: t.user.token })).status).toBe(200);
    const refused = await app.http('POST', '/api/v2/journal-entries/', {
      token: t.user.token,
      body: {
        client_account_id: t.account.id,
        lines: [
          { posting_date: '2026-05-02', account_code: '6300', debit: 1, credit: 0, dimensions: [{ type: 'project', id: project.id }] },
          { posting_date: '2026-05-02', account_code: '1920', debit: 0, credit: 1 },
        ],
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain(`lines.0.dimensions.0.id: project ${project.id} is inactive`);
  });
});
