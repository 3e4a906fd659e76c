import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// GraphQL for reconciliations: open items with their remaining amounts, create, commit, delete; and
// the widest REST list (entries with their journal lines and dimensions, created_by) batched: the same
// number of SQL statements for 2 and 30 reconciliations (STYLE.md, N+1 regressions fail a test).
describe.each(targets())('reconciliations GraphQL (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let customer: number;
  let supplier: number;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
    t = await app.seed.tenant();
    customer = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kunde AS', isCustomer: true } })).id;
    supplier = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Leverandør AS', isSupplier: true } })).id;
  });
  afterAll(() => app?.close());

  async function entry(code: string, debit: number, credit: number, partner: number, counter: string, date = '2026-05-02') {
    const res = await app.http('POST', '/api/v2/journal-entries/', {
      token: t.user.token,
      body: {
        client_account_id: t.account.id,
        lines: [
          { posting_date: date, account_code: code, debit, credit, dimensions: [{ type: 'businesspartner', id: partner }] },
          { posting_date: date, account_code: counter, debit: credit, credit: debit },
        ],
      },
    });
    expect(res.status).toBe(201);
    return res.body.lines[0].id as number;
  }

  const OPEN_ITEMS = /* GraphQL */ `
    query Open($clientAccountId: Int!, $accountCode: String, $businessPartnerId: Int) {
      openItems(clientAccountId: $clientAccountId, accountCode: $accountCode, businessPartnerId: $businessPartnerId) {
        nodes { id accountCode debit credit reconciledAmount remainingAmount remainingAmountFc }
      }
    }`;

  it('openItems lists posted lines with what is still open, per account and partner; a reconciliation closes them', async () => {
    const inv = await entry('1500', 500, 0, customer, '3000', '2026-05-01');
    const bill = await entry('2400', 0, 300, supplier, '6300', '2026-05-01');
    const pay = await entry('1500', 0, 200, customer, '1920', '2026-05-03');
    const open = await app.gql(t.user.token, OPEN_ITEMS, { clientAccountId: t.account.id, businessPartnerId: customer });
    expect(open.errors).toBeUndefined();
    expect(open.data.openItems.nodes.map((l: any) => [l.id, l.remainingAmount])).toEqual(expect.arrayContaining([[inv, '500.00'], [pay, '200.00']]));
    expect(open.data.openItems.nodes.map((l: any) => l.id)).not.toContain(bill);

    const created = await app.gql(
      t.user.token,
      /* GraphQL */ `mutation R($input: CreateReconciliationInput!) { createReconciliation(input: $input) { id isDraft sequenceNumber entries { journalEntryLineId debit credit } } }`,
      { input: { clientAccountId: t.account.id, date: '2026-05-31', entryLines: [{ journalEntryLineId: inv, debit: '200.00' }, { journalEntryLineId: pay }] } },
    );
    expect(created.errors).toBeUndefined();
    expect(created.data.createReconciliation).toMatchObject({ isDraft: false, entries: [{ journalEntryLineId: inv, debit: '200.00' }, { journalEntryLineId: pay, credit: '200.00' }] });
    const after = await app.gql(t.user.token, OPEN_ITEMS, { clientAccountId: t.account.id, accountCode: '1500', businessPartnerId: customer });
    const rows = after.data.openItems.nodes.filter((l: any) => l.id === inv || l.id === pay);
    expect(rows).toEqual([expect.objectContaining({ id: inv, reconciledAmount: '200.00', remainingAmount: '300.00' })]);

    const deleted = await app.gql(t.user.token, /* GraphQL */ `mutation D($id: Int!) { deleteReconciliation(id: $id) }`, { id: created.data.createReconciliation.id });
    expect(deleted.data.deleteReconciliation).toBe(true);
    const back = await app.gql(t.user.token, OPEN_ITEMS, { clientAccountId: t.account.id, businessPartnerId: customer });
    expect(back.data.openItems.nodes.find((l: any) => l.id === inv).remainingAmount).toBe('500.00');
  });

  it('commitReconciliation: a deleted one is a conflict (409), a read-only token may not write', async () => {
    const inv = await entry('1500', 90, 0, customer, '3000');
    const pay = await entry('1500', 0, 90, customer, '1920');
    const created = await app.gql(t.user.token, /* GraphQL */ `mutation R($input: CreateReconciliationInput!) { createReconciliation(input: $input) { id } }`, {
      input: { clientAccountId: t.account.id, date: '2026-05-31', entryLines: [{ journalEntryLineId: inv }, { journalEntryLineId: pay }] },
    });
    const id = created.data.createReconciliation.id;
    await app.gql(t.user.token, /* GraphQL */ `mutation D($id: Int!) { deleteReconciliation(id: $id) }`, { id });
    const commit = await app.gql(t.user.token, /* GraphQL */ `mutation C($id: Int!) { commitReconciliation(id: $id, isDraft: false) { id } }`, { id });
    expect(errorCode(commit)).toBe('common.conflict');
    const readOnly = await app.gql(t.user.readToken, /* GraphQL */ `mutation D($id: Int!) { deleteReconciliation(id: $id) }`, { id });
    expect(errorCode(readOnly)).toBeDefined();
    expect(readOnly.data?.deleteReconciliation ?? null).toBeNull();
  });

  it('GET /reconciliations with every relation issues the same number of statements for 2 and 30 reconciliations', async () => {
    const other = await app.seed.tenant();
    const partner = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: other.account.id, name: 'Kunde' } })).id;
    for (let i = 0; i < 30; i++) {
      const lines: number[] = [];
      for (const [debit, credit, counter] of [[100 + i, 0, '3000'], [0, 100 + i, '1920']] as const) {
        const res = await app.http('POST', '/api/v2/journal-entries/', {
          token: other.user.token,
          body: {
            client_account_id: other.account.id,
            lines: [
              { posting_date: '2026-05-02', account_code: '1500', debit, credit, dimensions: [{ type: 'businesspartner', id: partner }] },
              { posting_date: '2026-05-02', account_code: counter, debit: credit, credit: debit },
            ],
          },
        });
        lines.push(res.body.lines[0].id);
      }
      const r = await app.http('POST', '/api/v2/reconciliations', {
        token: other.user.token,
        body: { client_account_id: other.account.id, date: '2026-05-31', entry_lines: lines.map((id) => ({ journal_entry_line_id: id })) },
      });
      expect(r.status).toBe(201);
    }
    const count = async (perPage: number) => {
      app.statements.length = 0;
      const res = await app.http('GET', `/api/v2/reconciliations?client_account_id=${other.account.id}&per_page=${perPage}&with=entries.journal_entry_line,created_by`, { token: other.user.token });
      expect(res.body.data).toHaveLength(perPage);
      expect(res.body.data[0].entries[0].journal_entry_line.dimensions[0].name).toBe('Kunde');
      // the token's session and eligible accounts are looked up again whenever their few-second cache lapses (under load, between two counts): not the list's
      return app.statements.filter((q) => !/"(sessions|memberships|provider_relationships)"/.test(q)).length;
    };
    // warm: the session lookup (cached for SESSION_CACHE_SECONDS) and the reference caches
    await count(30);
    // the fewer of two counts: a lookup that only happens now and then (a cache lapsing under the load
    // of a full run) added a statement to one count once; an N+1 adds them to every count
    const small = Math.min(await count(2), await count(2));
    const large = Math.min(await count(30), await count(30));
    console.log(`[${target}] widest reconciliation list: ${large} SQL statements for 30 (${small} for 2)`);
    expect(large).toBe(small);
  });
});
