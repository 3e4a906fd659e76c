import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledOperations } from '../../rest-adapter/index.ts';
import type { CompiledOperation } from '../../rest-adapter/compile.ts';
import { restPath } from '../../rest-adapter/operation.ts';
import { CHANGE_SOURCES } from '../../src/modules/changes/changes.rules.ts';
import { toSnake } from '../../src/shared/naming.ts';
import { schema } from '../../src/schema.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { fixtureWorld, ownType, validRequest, wireKeys, type FixtureWorld } from '../support/valid-requests.ts';
import { pdfBytes, voucherFactory } from '../support/vouchers.ts';

// Issue 32: "every module's writes appear in the feed in order (a test walks the operation table's
// mutations and checks one change each)". Every mutation of the operation table is sent as it
// succeeds — the hostile sweep's valid request on a tenant owning one record of every kind
// (test/support/valid-requests.ts), with the few fields a business rule needs beyond the required
// ones (FIXTURES) — and the tenant's feed (GET /changes, from the cursor read before it) must then
// hold a change of the resource the write answers (RESOURCE where that is another), after every
// change of the writes before it. A mutation not sent is in SKIPPED with why, and the walk fails
// when the table has a mutation in neither, or SKIPPED names one it no longer has.

const compiled = compiledOperations(schema);
const mutations = compiled.filter((c) => c.isMutation);

/** Mutations the walk does not send, by tool name, and why. */
const SKIPPED: Record<string, string> = {
  // tables not published in the feed (UNPUBLISHED_TABLES, changes.rules.ts, with their reasons)
  create_webhook: 'webhooks are not published (plumbing of this feed)',
  update_webhook: 'webhooks are not published',
  delete_webhook: 'webhooks are not published',
  rotate_webhook_secret: 'webhooks are not published',
  retry_webhook_delivery: 'webhook deliveries are not published',
  create_chat_thread: "chat threads are their user's, not the account's data (unpublished)",
  update_chat_thread: 'chat threads are not published',
  create_chat_message: 'chat messages are not published',
  update_chat_message: 'chat messages are not published',
  add_chat_participant: 'chat participants are not published',
  import_saft_file: 'the import is a job (202) writing accounts, partners and entries later, each in the feed as itself; saft_imports are not published',
  // writes that store no record of the account
  preview_document: 'a preview stores nothing',
  create_govportal_authorization: 'answers an authorization URL; stores a sign-in state, no record of the account',
  create_idprovider_authorization: 'answers an authorization URL; stores a sign-in state, no record of the account',
  validate_tax_return: "asks the tax authority's validation; stores nothing",
  fetch_prefilled_tax_data: 'reads prefilled data from the tax authority; stores nothing',
  // writes that need an outside system this walk does not fake (their modules' tests do)
  create_govportal_system_user: 'needs an organization number and the government portal (test/portal-integrations)',
  update_bank_integration_status: "needs a bank's BIC on a company bank account and the bank's agreement (test/bank-integrations)",
  update_einvoice_status: 'needs an organization number known to the e-invoice registry (test/portal-integrations)',
  submit_yearly_account: 'files with the government portal (test/yearly-accounts)',
  create_yearly_account_submission: 'needs an organization number, for filing with the government portal (test/yearly-accounts)',
  submit_tax_return: 'files with the tax authority (test/tax-returns)',
  import_tax_returns: 'reads filings from the tax authority (test/tax-returns)',
  commit_reconciliation: 'commits a draft, and drafts come only from the matching job (test/reconciliations)',
  fetch_payroll_garnishments: 'reads orders from the tax authority (test/payroll-garnishments)',
};

/** The resource of the change a write records, where it is not the type it answers (snake_case). */
const RESOURCE: Record<string, string> = {
  accept_invitation: 'membership',
  create_journal_entries: 'journal_entry',
  create_bank_transaction_statement: 'bank_transaction_statement',
  upload_file: 'file',
  update_yearly_account_notes: 'yearly_account_submission',
  create_yearly_account_draft: 'yearly_account_submission',
  create_annual_allocation: 'journal_entry',
  merge_vouchers: 'voucher',
  split_voucher: 'voucher',
  create_voucher_statement: 'voucher_statement',
  create_equity_issuance: 'equity_transaction',
  create_equity_transfer: 'equity_transaction',
  create_equity_buyback: 'equity_transaction',
  create_equity_retirement: 'equity_transaction',
  split_shares: 'equity_transaction',
  submit_worker_task_result: 'worker_task',
  // a delete answers true: its tombstone is of what it deleted
  delete_journal_entry: 'journal_entry',
  delete_reconciliation: 'reconciliation',
  delete_document: 'document',
  delete_voucher: 'voucher',
  delete_task: 'task',
};

type Made = Record<string, { id?: number } & Record<string, unknown>>;
interface Fixture {
  /** path parameters instead of the fixtures' */
  params?: Record<string, string | number>;
  /** body fields over the valid request's (an array replaces it) */
  body?: unknown;
}
type Ctx = { app: TestApp; world: FixtureWorld; made: Made; ids: Record<string, number> };

const line = (account_code: string, debit: number, credit: number) => ({ posting_date: '2026-03-15', account_code, debit: String(debit), credit: String(credit) });
const balanced = [line('1920', 10, 0), line('3000', 0, 10)];

/** What a write needs beyond its required fields to pass its module's rules (built cheaply: REST calls or the fixtures). */
const FIXTURES: Record<string, (c: Ctx) => Promise<Fixture> | Fixture> = {
  create_journal_entry: () => ({ body: { lines: balanced } }),
  create_journal_entries: ({ world }) => ({ body: { client_account_id: world.t.account.id, entries: [{ lines: balanced }, { lines: balanced }] } }),
  update_journal_entry: async ({ app, world }) => {
    const draft = await app.http('POST', '/api/v2/journal-entries/', { token: world.t.user.token, body: { client_account_id: world.t.account.id, is_draft: true, lines: balanced } });
    expect(draft.status, draft.text).toBe(201);
    return { params: { id: draft.body.id }, body: { lines: [line('1920', 20, 0), line('3000', 0, 20)] } };
  },
  cancel_journal_entry: ({ made }) => ({ params: { id: made.create_journal_entry.id! }, body: { cancelled: 'Y', cancellation_reason: 'Feil' } }),
  delete_journal_entry: async ({ app, world }) => {
    const draft = await app.http('POST', '/api/v2/journal-entries/', { token: world.t.user.token, body: { client_account_id: world.t.account.id, is_draft: true, lines: balanced } });
    return { params: { id: draft.body.id } };
  },
  create_reconciliation: async ({ app, world }) => {
    const customer = [{ type: 'businesspartner', id: (world.ctx().fixtures as Record<string, number>).businessPartner }];
    const entry = await app.http('POST', '/api/v2/journal-entries/', { token: world.t.user.token, body: { client_account_id: world.t.account.id, lines: [{ ...line('1500', 10, 0), dimensions: customer }, { ...line('1500', 0, 10), dimensions: customer }] } });
    expect(entry.status, entry.text).toBe(201);
    const lines = await app.db.prisma.journalEntryLine.findMany({ where: { journalEntryId: entry.body.id }, select: { id: true } });
    return { body: { date: '2026-03-15', entry_lines: lines.map((l) => ({ journal_entry_line_id: l.id })) } };
  },
  delete_reconciliation: ({ made }) => ({ params: { id: made.create_reconciliation.id! } }),
  create_bank_transaction: ({ ids }) => ({ body: { payee_bank_account_id: ids.bankAccount } }),
  create_bank_statement: ({ ids }) => ({ body: { bank_account_id: ids.bankAccount, from_date: '2026-02-01', to_date: '2026-02-28', opening_balance: '0', closing_balance: '0', transactions: [] } }),
  upload_file: () => ({ body: { file_name: 'walk.txt', content_base64: Buffer.from('the walk').toString('base64') } }),
  // a draft, which can be edited and deleted (a finalized document is credited instead)
  create_document: ({ ids }) => ({ body: { business_partner_id: ids.businessPartner, gross_amount: '125', is_draft: true } }),
  update_document: ({ made }) => ({ params: { id: made.create_document.id! }, body: { gross_amount: '250' } }),
  patch_document: ({ made }) => ({ params: { id: made.create_document.id! }, body: { gross_amount: '375' } }),
  delete_document: ({ made }) => ({ params: { id: made.create_document.id! } }),
  merge_vouchers: async ({ app, world }) => {
    const vouchers = voucherFactory(app);
    const [a, b] = [await vouchers.voucher(world.t, { bytes: await pdfBytes(1) }), await vouchers.voucher(world.t, { bytes: await pdfBytes(1) })];
    return { body: { voucher_ids: [a.id, b.id] } };
  },
  split_voucher: async ({ app, world }) => {
    const v = await voucherFactory(app).voucher(world.t, { bytes: await pdfBytes(3) });
    return { body: { voucher_id: v.id, page_ranges: [[1, 1], [2, 3]] } };
  },
  // ids the valid request cannot name (these answer another type than the record, or true): the fixtures' own, never a guess
  create_voucher_statement: ({ ids }) => ({ params: { id: ids.voucher }, body: { comment: 'Walked' } }),
  delete_voucher: async ({ app, world }) => ({ params: { id: (await voucherFactory(app).voucher(world.t, { bytes: await pdfBytes(1) })).id } }),
  delete_task: ({ ids }) => ({ params: { id: ids.task } }),
  submit_worker_task_result: ({ made }) => ({ params: { id: made.create_worker_task.id! } }),
  cancel_invitation: ({ made }) => ({ params: { id: made.create_invitation.id! } }),
  create_yearly_account_draft: () => ({ body: { reporting_year: 2024 } }),
  update_yearly_account_notes: ({ made }) => ({ params: { id: made.create_yearly_account_draft.id! }, body: [{ key: 'walk', note_number: 1, title: 'Walk', body_type: 'table', body: { columns: ['a'], rows: [['1']] } }] }),
  create_annual_allocation: () => ({ body: { reporting_year: 2025, lines: [{ account_code: '1920', debit: '10', credit: '0' }, { account_code: '3000', debit: '0', credit: '10' }] } }),
  create_payroll_contract: () => ({ body: { employment_type: 'ordinaertArbeidsforhold', hourly_rate: '250' } }),
  update_payroll_contract: () => ({ body: { weekly_hours: '30' } }),
  update_payroll_contract_by_post: () => ({ body: { weekly_hours: '20' } }),
  split_shares: async ({ app, world, ids }) => {
    const held = await app.db.prisma.equityTransaction.aggregate({ where: { clientAccountId: world.t.account.id, businessPartnerId: ids.businessPartner, shareClass: 'COMMON' }, _sum: { quantity: true } });
    const position = Number(held._sum.quantity);
    return { body: { old_quantity: position, new_quantity: position * 2 } };
  },
};

/** Writes that need what another write made (its answer's id) go after it; deletes last. */
const AFTER = ['cancel_journal_entry', 'update_document', 'patch_document', 'submit_worker_task_result', 'cancel_invitation', 'update_yearly_account_notes'];
const order = (c: CompiledOperation) => (c.op.method === 'DELETE' ? 2 : AFTER.includes(c.toolName) ? 1 : 0);

const resourceOf = (c: CompiledOperation) => RESOURCE[c.toolName] ?? toSnake(ownType(c)).replace(/^_/, '');

describe.each(targets())("every mutation of the operation table appears in the feed (%s)", (target) => {
  let app: TestApp;
  let world: FixtureWorld;

  beforeAll(async () => {
    app = await startTestApp(target);
    world = await fixtureWorld(app);
  });
  afterAll(() => app?.close());

  it('the walk knows every mutation: each is sent or skipped with its reason, and the skips are all still mutations', () => {
    const names = mutations.map((c) => c.toolName);
    expect(Object.keys(SKIPPED).filter((n) => !names.includes(n)), 'stale SKIPPED entries').toEqual([]);
    expect(Object.keys(FIXTURES).filter((n) => !names.includes(n) || n in SKIPPED), 'FIXTURES of no sent mutation').toEqual([]);
    const published = new Set<string>(Object.values(CHANGE_SOURCES).map((s) => s.resource));
    expect(mutations.filter((c) => !(c.toolName in SKIPPED) && !published.has(resourceOf(c))).map((c) => `${c.toolName}: ${resourceOf(c)}`), 'give these a RESOURCE (the resource their change carries)').toEqual([]);
  });

  it('"every module\'s writes appear in the feed in order": each sent mutation is followed by a change of its resource, after the changes of the writes before it', async () => {
    const token = world.t.user.token;
    const account = world.t.account.id;
    const fixtures = world.ctx().fixtures as Record<string, number>;
    const ctx: Ctx = { app, world, made: {}, ids: fixtures };
    const read = async (after: string) => {
      const got: { id: string; type: string; resource: string; resource_id: string }[] = [];
      for (let cursor = after; ; ) {
        const res = await app.http('GET', `/api/v2/changes?client_account_id=${account}&limit=100${cursor ? `&after=${cursor}` : ''}`, { token });
        expect(res.status, res.text).toBe(200);
        got.push(...res.body.data);
        cursor = res.body.pagination.nextCursor;
        if (!res.body.pagination.hasMore) return { got, cursor };
      }
    };
    let { cursor } = await read('');
    const failures: string[] = [];
    const sent = [...mutations].filter((c) => !(c.toolName in SKIPPED)).sort((a, b) => order(a) - order(b));
    for (const c of sent) {
      let fixture: Fixture;
      try {
        fixture = (await FIXTURES[c.toolName]?.(ctx)) ?? {};
      } catch (e) {
        failures.push(`${c.toolName}: its fixture failed: ${(e as Error).message.slice(0, 300)}`);
        continue;
      }
      const valid = validRequest(c, world.ctx);
      const params = { ...valid.params, ...Object.fromEntries(Object.entries(fixture.params ?? {}).map(([k, v]) => [k, String(v)])) };
      const q = Object.entries(valid.query).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
      const path = `${restPath(c.op).replace(/:(\w+)/g, (_m, k: string) => encodeURIComponent(params[k]))}${q ? `?${q}` : ''}`;
      const wire = valid.body && c.bodyVariable ? wireKeys(valid.body, c.bodyVariable.type) : valid.body;
      const body = Array.isArray(fixture.body) ? fixture.body : fixture.body || wire ? { ...(wire as object), ...(fixture.body as object) } : undefined;
      const res = await app.http(c.op.method, path, { token: c.op.public ? undefined : token, body });
      if (res.status >= 300) {
        failures.push(`${c.toolName} ${c.op.method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
        continue;
      }
      if (res.body && typeof res.body === 'object') ctx.made[c.toolName] = res.body;
      const page = await read(cursor);
      cursor = page.cursor;
      const resource = resourceOf(c);
      if (!page.got.some((ch) => ch.resource === resource)) failures.push(`${c.toolName}: no ${resource} change (got ${page.got.map((ch) => ch.type).join(', ') || 'none'})`);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
