import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, startTestApp, targets, type TestApp } from '../support/harness.ts';
import { company } from './fixtures.ts';

// spec 002 "Equity" over GraphQL and MCP: the same operations as REST, the same rules and errors.
describe.each(targets())('equity GraphQL and MCP (%s)', (target) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(target);
  });
  afterAll(() => app?.close());

  const ENTRY = 'id transactionType transactionGroupId businessPartnerId shareClass quantity pricePerShare splitRatioNumerator splitRatioDenominator businessPartner { id name } createdBy { id }';

  it('issueShares, transferShares, buybackShares, retireShares, splitShares; equityTransactions, equityTransaction, equityPositions, equityCapTable, the value lists', async () => {
    const c = await company(app);
    const [a, b] = [await c.partner('Ada'), await c.partner('Bo')];
    const token = c.t.user.token;
    const account = c.t.account.id;
    const run = async (mutation: string, input: Record<string, unknown>) => {
      const res = await app.gql(token, `mutation($input: ${mutation[0].toUpperCase()}${mutation.slice(1)}Input!) { ${mutation}(input: $input) { ${ENTRY} } }`, { input: { clientAccountId: account, ...input } });
      expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
      return res.data![mutation];
    };
    const issued = await run('issueShares', { businessPartnerId: a, shareClass: 'COMMON', quantity: 90, pricePerShare: '2' });
    expect(issued).toMatchObject({ transactionType: 'ISSUANCE', quantity: 90, pricePerShare: '2.000000', businessPartner: { id: a, name: 'Ada' }, createdBy: { id: c.t.user.id } });
    expect(await run('transferShares', { fromBusinessPartnerId: a, toBusinessPartnerId: b, shareClass: 'COMMON', quantity: 30 })).toMatchObject({ businessPartnerId: b, quantity: 30 });
    expect(await run('buybackShares', { fromBusinessPartnerId: b, companyBusinessPartnerId: c.self, shareClass: 'COMMON', quantity: 10 })).toMatchObject({ businessPartnerId: c.self, quantity: 10 });
    expect(await run('retireShares', { companyBusinessPartnerId: c.self, shareClass: 'COMMON', quantity: 4 })).toMatchObject({ businessPartnerId: c.self, quantity: -4 });
    expect(await run('splitShares', { businessPartnerId: a, shareClass: 'COMMON', oldQuantity: 60, newQuantity: 120 })).toMatchObject({ quantity: 120, splitRatioNumerator: 2, splitRatioDenominator: 1 });

    const read = await app.gql(
      token,
      `query($id: Int!, $account: Int!, $company: Int!) {
        equityTransaction(id: $id) { id quantity }
        equityTransactions(clientAccountId: $account, transactionType: TRANSFER) { nodes { businessPartnerId quantity } meta { records } }
        equityPositions(clientAccountId: $account) { positions { businessPartnerId shareClass quantity costBasis } }
        equityCapTable(clientAccountId: $account, companyBusinessPartnerId: $company) { shareholders { businessPartnerId name positions totalShares totalPercentage } shareClasses totalShares treasuryShares }
        equityShareClasses { shareClasses { value label } }
        equityTransactionTypes { transactionTypes { value } }
      }`,
      { id: issued.id, account, company: c.self },
    );
    expect(read.errors).toBeUndefined();
    const d = read.data;
    expect(d.equityTransaction).toEqual({ id: issued.id, quantity: 90 });
    expect(d.equityTransactions).toEqual({ nodes: [{ businessPartnerId: a, quantity: -30 }, { businessPartnerId: b, quantity: 30 }], meta: { records: 2 } });
    expect(d.equityPositions.positions).toEqual(
      [
        { businessPartnerId: c.self, shareClass: 'COMMON', quantity: 6, costBasis: '12.00' },
        { businessPartnerId: a, shareClass: 'COMMON', quantity: 120, costBasis: '120.00' },
        { businessPartnerId: b, shareClass: 'COMMON', quantity: 20, costBasis: '40.00' },
      ].sort((x, y) => x.businessPartnerId - y.businessPartnerId),
    );
    expect(d.equityCapTable).toEqual({
      shareholders: [
        { businessPartnerId: a, name: 'Ada', positions: { COMMON: { shares: 120, percentage: '85.71' } }, totalShares: 120, totalPercentage: '85.71' },
        { businessPartnerId: b, name: 'Bo', positions: { COMMON: { shares: 20, percentage: '14.29' } }, totalShares: 20, totalPercentage: '14.29' },
      ],
      shareClasses: ['COMMON'],
      totalShares: 140,
      treasuryShares: { COMMON: 6 },
    });
    expect(d.equityShareClasses.shareClasses).toHaveLength(8);
    expect(d.equityTransactionTypes.transactionTypes.map((x: { value: string }) => x.value)).toEqual(['ISSUANCE', 'TRANSFER', 'BUYBACK', 'RETIREMENT', 'SPLIT', 'CONVERSION']);
  });

  it('errors carry their status: Insufficient shares (400), another account (403), a missing entry (404), a read-only token (insufficient_scope)', async () => {
    const c = await company(app);
    const other = await company(app);
    const a = await c.partner('Ada');
    const transfer = await app.gql(c.t.user.token, 'mutation($i: TransferSharesInput!) { transferShares(input: $i) { id } }', {
      i: { clientAccountId: c.t.account.id, fromBusinessPartnerId: a, toBusinessPartnerId: c.self, shareClass: 'COMMON', quantity: 1 },
    });
    expect(transfer.errors?.[0]).toMatchObject({ message: expect.stringMatching(/^Insufficient shares: Ada \(business partner \d+\) has 0 COMMON, needs 1$/), extensions: { code: 'common.validation_error' } });
    const foreign = await app.gql(other.t.user.token, 'query($a: Int!) { equityPositions(clientAccountId: $a) { positions { quantity } } }', { a: c.t.account.id });
    expect(errorCode(foreign)).toBe('common.forbidden');
    const missing = await app.gql(c.t.user.token, '{ equityTransaction(id: 2000000000) { id } }');
    expect(errorCode(missing)).toBe('common.not_found');
    const readOnly = await app.gql(c.t.user.readToken, 'mutation($i: IssueSharesInput!) { issueShares(input: $i) { id } }', { i: { clientAccountId: c.t.account.id, businessPartnerId: a, shareClass: 'COMMON', quantity: 1 } });
    expect(errorCode(readOnly)).toBe('insufficient_scope');
  });

  it('MCP: every equity operation is a tool; a write and the Insufficient shares error as a tool result', async () => {
    const c = await company(app);
    const a = await c.partner('Ada');
    const client = new Client({ name: 'test-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp?modules=equity`), { requestInit: { headers: { authorization: `Bearer ${c.t.user.token}` } } }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name).filter((n) => !n.startsWith('graphql_') && !['list_toolsets', 'describe_operation', 'call_operation'].includes(n)).sort()).toEqual([
        'create_equity_buyback',
        'create_equity_issuance',
        'create_equity_retirement',
        'create_equity_transfer',
        'get_equity_cap_table',
        'get_equity_positions',
        'get_equity_transaction',
        'list_equity_share_classes',
        'list_equity_transaction_types',
        'list_equity_transactions',
        'split_shares',
      ]);
      const text = (r: Awaited<ReturnType<typeof client.callTool>>) => JSON.parse((r.content as { text: string }[])[0].text);
      const issued = await client.callTool({ name: 'create_equity_issuance', arguments: { client_account_id: c.t.account.id, business_partner_id: a, share_class: 'SEED', quantity: 5 } });
      expect(issued.isError).toBeFalsy();
      expect(text(issued)).toMatchObject({ transaction_type: 'ISSUANCE', share_class: 'SEED', quantity: 5 });
      const refused = await client.callTool({ name: 'create_equity_retirement', arguments: { client_account_id: c.t.account.id, company_business_partner_id: c.self, share_class: 'SEED', quantity: 1 } });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toEqual({ error: `Insufficient shares: ${c.t.account.displayName} (business partner ${c.self}) has 0 SEED, needs 1`, status: 400 });
      const positions = await client.callTool({ name: 'get_equity_positions', arguments: { client_account_id: c.t.account.id } });
      expect(text(positions)).toEqual({ positions: [{ business_partner_id: a, share_class: 'SEED', quantity: 5, cost_basis: '0.00' }] });
    } finally {
      await client.close();
    }
  });
});
