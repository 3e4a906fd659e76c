import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync } from 'node:fs';
import { NAERINGSSPESIFIKASJON_CODES } from '../../src/modules/tax-returns/reference/naeringsspesifikasjon-codes.ts';
import { errorCode, startTestApp, targets, type TestApp } from '../support/harness.ts';
import { filingTenant, postCleanLedger, postFixtureLedger } from './fixtures.ts';

// The same operations over GraphQL and as MCP tools (one service each: the REST file checks the rules).
describe.each(targets())('tax returns GraphQL and MCP (%s)', (target) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(target);
  });
  afterAll(() => app?.close());

  it('preview, submit, get with netWealth and createdBy, list, status and cancel over /graphql', async () => {
    const t = await filingTenant(app.seed);
    await postFixtureLedger(app.seed, t);
    const preview = await app.gql(
      t.user.readToken,
      'query($c: Int!) { taxReturnPreview(clientAccountId: $c, reportingYear: 2026) { resultatregnskap { aarsresultat driftsinntekter { sum } } balanse { eiendeler { sum } egenkapitalOgGjeld { sum } } checks { code ok } } }',
      { c: t.account.id },
    );
    expect(preview.data.taxReturnPreview).toMatchObject({
      resultatregnskap: { aarsresultat: '134734.46', driftsinntekter: { sum: '250000.00' } },
      balanse: { eiendeler: { sum: '319734.46' }, egenkapitalOgGjeld: { sum: '319734.46' } },
    });
    const refused = await app.gql(t.user.readToken, 'mutation($c: Int!) { submitTaxReturn(input: { clientAccountId: $c, reportingYear: 2026 }) { id } }', { c: t.account.id });
    expect(errorCode(refused)).toBe('insufficient_scope');
    const submitted = await app.gql(
      t.user.token,
      'mutation($c: Int!) { submitTaxReturn(input: { clientAccountId: $c, reportingYear: 2026 }) { id status innsendingsformaal findings { code } fromDate toDate } }',
      { c: t.account.id },
    );
    expect(submitted.data.submitTaxReturn).toMatchObject({ status: 'SUBMITTED', innsendingsformaal: 'egenfastsetting', findings: [], fromDate: '2026-01-01', toDate: '2026-12-31' });
    const id = submitted.data.submitTaxReturn.id;
    const got = await app.gql(t.user.token, 'query($id: Int!) { taxReturn(id: $id) { id createdBy { id } netWealth { netWealth totalDebts } } }', { id });
    expect(got.data.taxReturn).toEqual({ id, createdBy: { id: t.user.id }, netWealth: { netWealth: '239734.46', totalDebts: '80000.00' } });
    const list = await app.gql(t.user.token, 'query($c: [Int!]) { taxReturns(clientAccountIds: $c, status: [SUBMITTED]) { nodes { id } meta { records perPage } } }', { c: [t.account.id] });
    expect(list.data.taxReturns).toEqual({ nodes: [{ id }], meta: { records: 1, perPage: 100 } });
    expect((await app.gql(t.user.token, 'query($id: Int!) { taxReturnStatus(id: $id) { status } }', { id })).data.taxReturnStatus.status).toBe('SUBMITTED');
    const cancelled = await app.gql(t.user.token, 'mutation($id: Int!) { cancelTaxReturn(id: $id) { status } }', { id });
    expect(cancelled.data.cancelTaxReturn.status).toBe('CANCELLED');
    const again = await app.gql(t.user.token, 'mutation($id: Int!) { cancelTaxReturn(id: $id) { status } }', { id });
    expect(again.errors?.[0]).toMatchObject({ message: expect.stringMatching(/only a DRAFT or SUBMITTED/), extensions: { code: 'common.validation_error' } });
  });

  it('MCP: the operations are tools; validate_tax_return answers the authority’s findings', async () => {
    const t = await filingTenant(app.seed);
    await postCleanLedger(app.seed, t);
    const client = new Client({ name: 'test-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp?modules=tax-returns`), { requestInit: { headers: { authorization: `Bearer ${t.user.token}` } } }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name).filter((n) => n.includes('tax')).sort()).toEqual([
        'cancel_tax_return',
        'fetch_prefilled_tax_data',
        'get_tax_return',
        'get_tax_return_status',
        'import_tax_returns',
        'list_tax_returns',
        'preview_tax_return',
        'submit_tax_return',
        'validate_tax_return',
      ]);
      const res = await client.callTool({ name: 'validate_tax_return', arguments: { year: 2026, client_account_id: t.account.id } });
      expect(JSON.parse((res.content as { text: string }[])[0].text)).toEqual({ valid: true, errors: [], warnings: [] });
    } finally {
      await client.close();
    }
  });
});

describe('the næringsspesifikasjon code list shipped with the module', () => {
  it('is every row of src/reference-data/source/naeringsspesifikasjon.csv: code, category and Norwegian description', () => {
    const rows = readFileSync(new URL('../../src/reference-data/source/naeringsspesifikasjon.csv', import.meta.url), 'utf8')
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/)
      .slice(1)
      .filter(Boolean)
      .map((line) => {
        // RFC 4180: two rows quote a description containing ';'
        const cells = [...line.matchAll(/("([^"]|"")*"|[^;]*)(;|$)/g)].map((m) => m[1].replace(/^"|"$/g, '').replace(/""/g, '"'));
        return { code: cells[3], category: cells[0], description: cells[4] };
      });
    expect(rows).toHaveLength(527);
    expect(NAERINGSSPESIFIKASJON_CODES).toEqual(rows);
  });
});
