import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parse } from 'graphql';
import { schema } from '../../src/schema.ts';
import { measureQuery } from '../../src/shared/query-limits.ts';
import { errorCode, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// The same operations on GraphQL (public ones callable without a token) and as MCP tools.
const uniq = () => Math.random().toString(36).slice(2, 10);

const FIELDS = 'id invitedEmail clientAccountId roleId token status expiresAt invitedById acceptedById acceptedAt isExpired isPending canBeAccepted role { id name description } clientAccount { id displayName } invitedBy { id email } acceptedBy { id email }';

describe('the list\'s query cost counts the invitations `limit` asks for (100 by default, at most 1000)', () => {
  it.each([
    ['', 100],
    ['limit: 10', 10],
    ['limit: 5000', 1000],
  ])('invitations(%s) { nodes { id role { id } } }', (args, records) => {
    const [measure] = measureQuery(schema, parse(`{ invitations${args ? `(${args})` : ''} { nodes { id role { id } } count } }`));
    expect(measure.cost).toBe(1 + records * 2);
  });
});

describe.each(targets())('invitations over GraphQL and MCP (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  beforeAll(async () => {
    app = await startTestApp(target);
    t = await app.seed.tenant();
  });
  afterAll(() => app?.close());

  /** POST /graphql without a token */
  const anonymous = async (query: string, variables?: Record<string, unknown>) => (await app.http('POST', '/graphql', { body: { query, variables } })).body;
  const create = (email = `g-${uniq()}@example.no`, roleId = 5, token = t.user.token) =>
    app.gql(token, `mutation($i: CreateInvitationInput!) { createInvitation(input: $i) { ${FIELDS} } }`, { i: { email, clientAccountId: t.account.id, roleId } });

  it('createInvitation, invitations, invitation, cancelInvitation with a token', async () => {
    const made = await create(undefined, 4);
    expect(made.errors?.[0]?.message).toMatch(/BK \(Bookkeeper\) can only be held on a provider account/);
    expect(errorCode(made)).toBe('common.validation_error');
    const { data } = await create(undefined, 3);
    const inv = data.createInvitation;
    expect(inv).toMatchObject({ status: 'PENDING', roleId: 3, role: { id: 3, name: 'CA', description: 'Client Account Owner' }, invitedBy: { id: t.user.id }, acceptedBy: null, canBeAccepted: true });
    const list = await app.gql(t.user.token, 'query($a: Int) { invitations(clientAccountId: $a, status: PENDING, limit: 1) { nodes { id } count limit offset } }', { a: t.account.id });
    expect(list.data.invitations).toEqual({ nodes: [{ id: inv.id }], count: expect.any(Number), limit: 1, offset: 0 });
    expect((await app.gql(t.user.token, `query($id: Int!) { invitation(id: $id) { ${FIELDS} } }`, { id: inv.id })).data.invitation).toEqual(inv);
    const cancelled = await app.gql(t.user.token, 'mutation($id: Int!) { cancelInvitation(id: $id) { status canBeAccepted } }', { id: inv.id });
    expect(cancelled.data.cancelInvitation).toEqual({ status: 'CANCELLED', canBeAccepted: false });
  });

  it('publicInvitation and acceptInvitation need no token; the answer carries OAuth tokens for the new user', async () => {
    const inv = (await create()).data.createInvitation;
    const seen = await anonymous('query($t: String!) { publicInvitation(token: $t) { id invitedEmail status isExpired isPending canBeAccepted expiresAt clientAccount { id displayName uniqueName } role { id name } } }', { t: inv.token });
    expect(seen.errors).toBeUndefined();
    expect(seen.data.publicInvitation).toMatchObject({ id: inv.id, invitedEmail: inv.invitedEmail, status: 'PENDING', canBeAccepted: true, clientAccount: { id: t.account.id }, role: { id: 5, name: 'EM' } });
    const email = `g-ny-${uniq()}@example.no`;
    const accepted = await anonymous(
      'mutation($t: String!, $i: AcceptInvitationInput!) { acceptInvitation(token: $t, input: $i) { message invitation { id status acceptedAt } user { id email emailVerified } tokens { accessToken refreshToken tokenType expiresIn scope } } }',
      { t: inv.token, i: { firstName: 'Gro', lastName: 'Graf', email, password: 'gode passord' } },
    );
    expect(accepted.errors).toBeUndefined();
    expect(accepted.data.acceptInvitation).toMatchObject({
      invitation: { id: inv.id, status: 'ACCEPTED' },
      user: { email, emailVerified: false },
      tokens: { tokenType: 'Bearer', expiresIn: 3600, scope: 'read write' },
    });
    const me = await app.gql(accepted.data.acceptInvitation.tokens.accessToken, '{ me { user { email } clientAccounts { id } } }');
    expect(me.data.me).toEqual({ user: { email }, clientAccounts: [{ id: t.account.id }] });
    const again = await anonymous('mutation($t: String!, $i: AcceptInvitationInput!) { acceptInvitation(token: $t, input: $i) { message } }', {
      t: inv.token,
      i: { firstName: 'Gro', lastName: 'Graf', email: `g-${uniq()}@example.no`, password: 'gode passord' },
    });
    expect(again.errors[0]).toMatchObject({ message: 'This invitation has already been accepted', extensions: { code: 'common.validation_error' } });
    const unknown = await anonymous('{ publicInvitation(token: "nope") { id } }');
    expect(unknown.errors[0].extensions).toMatchObject({ code: 'common.not_found' });
  });

  it.each([
    ['a query of the managers\' fields', '{ invitations { count } }'],
    ['a public field beside a private one', '{ publicInvitation(token: "x") { id } invitation(id: 1) { id } }'],
    ['a mutation that is not public', 'mutation { cancelInvitation(id: 1) { id } }'],
    ['a fragment reaching a private field', '{ ...F } fragment F on Query { invitations { count } }'],
  ])('without a token, %s is 401 as before', async (_name, query) => {
    const res = await app.http('POST', '/graphql', { body: { query } });
    expect(res.status).toBe(401);
    expect(errorCode(res.body)).toBe('common.unauthenticated');
  });

  it('a read-only token may use the public fields, not createInvitation', async () => {
    const denied = await create(undefined, 5, t.user.readToken);
    expect(errorCode(denied)).toBe('insufficient_scope');
    const inv = (await create()).data.createInvitation;
    expect((await app.gql(t.user.readToken, 'query($t: String!) { publicInvitation(token: $t) { id } }', { t: inv.token })).data.publicInvitation).toEqual({ id: inv.id });
  });

  it('MCP: the operations are tools (create_invitation, list_invitations, get_invitation, cancel_invitation, get_public_invitation, accept_invitation)', async () => {
    const client = new Client({ name: 'test-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp?modules=invitations`), { requestInit: { headers: { authorization: `Bearer ${t.user.token}` } } }));
    try {
      const { tools } = await client.listTools();
      const names = tools.map((x) => x.name).filter((n) => n.includes('invitation'));
      expect(names.sort()).toEqual(['accept_invitation', 'cancel_invitation', 'create_invitation', 'get_invitation', 'get_public_invitation', 'list_invitations']);
      const described = await client.callTool({ name: 'describe_operation', arguments: { name: 'get_public_invitation' } });
      expect(described.structuredContent).toMatchObject({ rest: 'GET /public/v2/invitations/{token}' });
      const created = await client.callTool({ name: 'create_invitation', arguments: { email: `mcp-${uniq()}@example.no`, client_account_id: t.account.id, role_id: 5 } });
      const inv = JSON.parse((created.content as { text: string }[])[0].text);
      expect(inv).toMatchObject({ status: 'PENDING', role: { id: 5, name: 'EM' } });
      const seen = await client.callTool({ name: 'get_public_invitation', arguments: { token: inv.token } });
      expect(JSON.parse((seen.content as { text: string }[])[0].text)).toMatchObject({ id: inv.id, can_be_accepted: true });
      const refused = await client.callTool({ name: 'accept_invitation', arguments: { token: inv.token, first_name: 'M', last_name: 'C', email: `mcp-${uniq()}@example.no`, password: 'kort' } });
      expect(refused.isError).toBe(true);
      expect(JSON.parse((refused.content as { text: string }[])[0].text)).toEqual({ error: 'password: must be at least 8 characters', status: 400 });
    } finally {
      await client.close();
    }
  });
});
