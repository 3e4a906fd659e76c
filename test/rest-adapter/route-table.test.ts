import { describe, expect, it } from 'vitest';
import { buildSchema } from 'graphql';
import { compiledOperations, operations } from '../../rest-adapter/index.ts';
import { compileOperation } from '../../rest-adapter/compile.ts';
import { operationVariables } from '../../rest-adapter/variables.ts';
import { operationPaths, restPath, type Operation } from '../../rest-adapter/operation.ts';
import { buildOpenApiDocument, openApiKey } from '../../src/openapi/openapi.ts';
import { toolbox } from '../../src/mcp/tools.ts';
import { ValidationError } from '../../src/shared/errors.ts';
import { schema } from '../../src/schema.ts';

/** Every documented method + path of the modules built so far (spec 001, 002), relative to /api/v2 unless public. */
const DOCUMENTED = [
  'GET /items', 'GET /items/:id', 'POST /items', 'PUT /items/:id', 'DELETE /items/:id',
  'GET /units', 'GET /units/:id',
  'GET /item-collections', 'GET /item-collections/:id', 'POST /item-collections',
  'GET /item-collections/:id/entries', 'POST /item-collections/:id/entries',
  'PUT /item-collections/:id/entries/:entry_id', 'DELETE /item-collections/:id/entries/:entry_id',
  'GET /journal-entries', 'GET /journal-entries/:id', 'POST /journal-entries/', 'PUT /journal-entries/:id', 'PATCH /journal-entries/:id',
  'DELETE /journal-entries/:id',
  // designed in issue 33 (beyond the spec): bulk posting
  'POST /journal-entries/batch',
  'POST /saft-imports', 'GET /saft-imports/:id', 'GET /saft-imports',
  'GET /projects', 'GET /projects/:id', 'POST /projects', 'PUT /projects/:id', 'DELETE /projects/:id',
  'GET /departments', 'GET /departments/:id', 'POST /departments', 'PUT /departments/:id', 'POST /departments/:id', 'DELETE /departments/:id',
  'GET /reconciliations', 'POST /reconciliations', 'PATCH /reconciliations/:id', 'DELETE /reconciliations/:id',
  'GET /bank-transactions', 'GET /bank-transactions/:id', 'POST /bank-transactions',
  'GET /bank-transactions/:id/statements', 'POST /bank-transactions/:id/statements', 'POST /bank-statements',
  'GET /reports/balance-sheet', 'GET /reports/income-statement', 'GET /reports/trial-balance', 'GET /reports/general-ledger',
  'GET /reports/accounts-payable', 'GET /reports/accounts-receivable', 'GET /reports/data-export',
  // the upload of vouchers and attachments (spec 001 "Voucher (an uploaded file …)"; spec 002's CHAT_ATTACHMENT)
  'POST /files',
  'GET /documents', 'POST /documents', 'GET /documents/:id', 'PUT /documents/:id', 'PATCH /documents/:id', 'DELETE /documents/:id',
  'POST /documents/preview',
  'GET /vouchers', 'GET /vouchers/:id', 'DELETE /vouchers/:id', 'POST /vouchers/merge', 'POST /vouchers/split',
  'GET /vouchers/:id/statements', 'POST /vouchers/:id/statements',
  'GET /voucher-collections', 'POST /voucher-collections', 'PUT /voucher-collections/:id',
  // spec 002 "Invitations"; the two public paths are served under /public/v2 without a token
  'POST /invitations', 'GET /invitations', 'GET /invitations/:id', 'DELETE /invitations/:id',
  'GET /public/v2/invitations/:token', 'POST /public/v2/invitations/:token/accept',
  // spec 002 "Worker tasks": every path under both prefixes (aliases of one entry each)
  'GET /contributor/tasks', 'GET /worker/tasks', 'POST /contributor/tasks', 'POST /worker/tasks',
  'GET /contributor/tasks/:id', 'GET /worker/tasks/:id', 'PATCH /contributor/tasks/:id', 'PATCH /worker/tasks/:id',
  'POST /contributor/tasks/:id/results', 'POST /worker/tasks/:id/results',
  // spec 002 "Notification settings"
  'GET /client-accounts/:client_account_id/notification-settings', 'PUT /client-accounts/:client_account_id/notification-settings/:notification_type',
  // spec 002
  'GET /tasks', 'POST /tasks', 'GET /tasks/:id', 'PUT /tasks/:id', 'DELETE /tasks/:id',
  'GET /chat/threads', 'POST /chat/threads', 'GET /chat/threads/:thread_id',
  'POST /chat/threads/:thread_id/messages', 'PATCH /chat/threads/:thread_id/messages/:message_id',
  'GET /chat/threads/:thread_id/participants', 'POST /chat/threads/:thread_id/participants',
  // designed here, "not shown" in spec 002: updating a thread, listing its messages
  'PATCH /chat/threads/:thread_id', 'GET /chat/threads/:thread_id/messages',
  // spec 002 "Integrations": govportal, taxauthority property search, idprovider, dialogplatform
  'GET /integrations/govportal/status', 'POST /integrations/govportal/authorize', 'GET /integrations/govportal/reportees',
  'GET /integrations/govportal/parties', 'GET /integrations/govportal/system-users', 'POST /integrations/govportal/system-users',
  'GET /integrations/govportal/system-users/:id', 'GET /integrations/taxauthority/eiendom/soek/:inntektsaar',
  'GET /integrations/idprovider/status', 'POST /integrations/idprovider/authorize', 'GET /integrations/dialogplatform/dialogs',
  // spec 002 "Integrations": banks, einvoice, providerb
  'GET /integrations/banks', 'GET /integrations/banks/:bic/status', 'PATCH /integrations/banks/:bic/status',
  'GET /integrations/banks/:bic/pdf-forms/:form_type',
  'GET /integrations/einvoice/status', 'PATCH /integrations/einvoice/status', 'GET /integrations/providerb/status',
  // spec 002 "Yearly accounts"
  'GET /yearly-accounts/preview', 'GET /yearly-accounts/submissions', 'GET /yearly-accounts/submissions/:id',
  'POST /yearly-accounts/drafts', 'POST /yearly-accounts/submissions',
  'POST /yearly-accounts/submissions/:id/submit', 'POST /yearly-accounts/submissions/:id/cancel',
  'GET /yearly-accounts/submissions/:id/pdf', 'GET /yearly-accounts/submissions/:id/notes', 'PUT /yearly-accounts/submissions/:id/notes',
  'POST /yearly-accounts/annual-allocations',
  // spec 002 "Tax returns" (/tax-returns/preview before /tax-returns/:id: the literal path wins)
  'GET /tax-returns', 'GET /tax-returns/preview', 'GET /tax-returns/:id', 'GET /tax-returns/:id/status',
  'POST /tax-returns/:year/fetch-prefilled', 'POST /tax-returns/:year/validate', 'POST /tax-returns', 'POST /tax-returns/import', 'POST /tax-returns/:id/cancel',
  // spec 002 "Payroll garnishments" (read-only: no create, update or delete)
  'GET /payroll/garnishments', 'GET /payroll/garnishments/:id', 'POST /payroll/garnishments/fetch',
  // spec 002 "Payroll contracts"
  'GET /payroll/contracts', 'GET /payroll/contracts/:id', 'POST /payroll/contracts', 'PUT /payroll/contracts/:id', 'POST /payroll/contracts/:id',
  // spec 002 "Equity"
  'GET /equity/transactions', 'GET /equity/transactions/:id', 'POST /equity/transactions/issue', 'POST /equity/transactions/transfer',
  'POST /equity/transactions/buyback', 'POST /equity/transactions/retire', 'POST /equity/transactions/split',
  'GET /equity/positions', 'GET /equity/cap-table', 'GET /equity/share-classes', 'GET /equity/transaction-types',
  // designed here beyond the spec (issue 32, README "Integrations: staying in sync")
  'GET /changes',
  // issue 32 (our extension): webhooks of a client account's changes
  'GET /webhooks', 'POST /webhooks', 'GET /webhooks/:id', 'PATCH /webhooks/:id', 'DELETE /webhooks/:id',
  'POST /webhooks/:id/rotate-secret', 'GET /webhooks/:id/deliveries', 'POST /webhooks/:id/deliveries/:delivery_id/retry',
];

/** spec 000, Authentication 6, word for word: the methods a token without write cannot perform. */
const WRITE_METHODS_OF_THE_SPEC = ['POST', 'PUT', 'PATCH', 'DELETE'];

describe('operation table', () => {
  it('has exactly one entry for every documented method and path', () => {
    const table = operations.flatMap((r) => operationPaths(r).map((path) => `${r.method} ${r.public ? restPath({ ...r, path }) : path}`));
    expect(new Set(table).size).toBe(table.length);
    expect([...table].sort()).toEqual([...DOCUMENTED].sort());
  });

  it.each(operations.map((r) => [`${r.method} ${r.path}`, r] as const))('%s: its GraphQL document validates against the schema', (_name, op) => {
    expect(() => compileOperation(schema, op)).not.toThrow();
  });

  it('tool names are unique snake_case verbs', () => {
    const names = compiledOperations(schema).map((c) => c.toolName);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^(list|get|create|update|patch|delete|deactivate|cancel|commit|import|book|upload|preview|merge|split|accept|submit|add|fetch|validate|rotate|retry)_[a-z_]+$/);
  });

  describe('spec 000: "A token without write cannot perform POST, PUT, PATCH or DELETE" — no write entry is read-only anywhere', () => {
    const openapi = buildOpenApiDocument(schema, { baseUrl: 'http://localhost' });
    const { byName } = toolbox(schema);
    it.each(compiledOperations(schema).map((c) => [`${c.op.method} ${restPath(c.op)}`, c] as const))('%s', (_name, c) => {
      const write = WRITE_METHODS_OF_THE_SPEC.includes(c.op.method);
      // the REST route (runOperation refuses a token without write), and GraphQL: the document is a mutation, which needs write on /graphql too
      expect(c.needsWrite).toBe(write);
      expect(c.isMutation).toBe(write);
      // the MCP tool: not read-only, so tools/list leaves it out for a read-only token and a call is refused
      const tool = byName.get(c.toolName)!;
      expect(tool.readOnly).toBe(!write);
      expect(tool.tool.annotations?.readOnlyHint).toBe(!write);
      // the OpenAPI document: security names write; a write takes Idempotency-Key (the public paths take no token at all)
      for (const path of operationPaths(c.op)) {
        const described = openapi.paths[openApiKey({ ...c.op, path })][c.op.method.toLowerCase()];
        const scope = write ? 'write' : 'read';
        expect(described.security).toEqual(c.op.public ? [] : [{ bearer: [scope] }, { oauth2: [scope] }]);
        expect(described.parameters?.some((p) => '$ref' in p && p.$ref.endsWith('/IdempotencyKey'))).toBe(write && !c.op.public);
      }
    });

    it('an entry whose document disagrees with its method does not compile: a POST running a query, a GET running a mutation', () => {
      expect(() => compileOperation(testSchema, op({ method: 'POST', document: list.op.document }))).toThrow(/POST, PUT, PATCH or DELETE needs the write scope, so its document must be a mutation/);
      expect(() => compileOperation(testSchema, op({ method: 'GET', path: '/parents/:parent_id/entries', document: create.op.document }))).toThrow(/GET needs no write scope, so its document must be a query/);
    });
  });

  it('a public operation (no token, under /public/v2) selects only public fields: an anonymous caller may run it on /graphql too', () => {
    const publicOps = compiledOperations(schema).filter((c) => c.op.public);
    expect(publicOps.map((c) => c.toolName).sort()).toEqual(['accept_invitation', 'get_public_invitation']);
    for (const c of publicOps) {
      const root = c.isMutation ? schema.getMutationType()! : schema.getQueryType()!;
      const field = c.operation.selectionSet.selections[0];
      expect(field.kind === 'Field' && root.getFields()[field.name.value].extensions.publicField, c.toolName).toBe(true);
    }
  });
});

// A schema of its own, so the derivation is tested on shapes the modules do not have yet.
const testSchema = buildSchema(/* GraphQL */ `
  scalar Date
  scalar JSON
  enum Kind { DRAFT POSTED }
  input LineInput { accountId: Int!, postingDate: Date, amount: String!, dimensions: [DimensionInput!] }
  input DimensionInput { relationType: String!, relationId: Int! }
  input EntryInput { clientAccountId: Int!, kind: Kind, lines: [LineInput!]!, metadata: JSON, parentId: Int }
  type Entry { id: Int!, clientAccountId: Int!, createdAt: String!, lines: [Int!]! }
  type Query { entries(clientAccountId: Int!, kinds: [Kind!], isActive: Boolean = true, page: Int): [Entry!]! }
  type Mutation { createEntry(parentId: Int!, input: EntryInput!, dryRun: Boolean): Entry!, replaceEntry(id: Int!, input: EntryInput!): Entry! }
`);

const op = (o: Partial<Operation>): Operation => ({ method: 'GET', path: '/x', summary: 'test', document: '', ...o });
const list = compileOperation(
  testSchema,
  op({ document: 'query ListEntries($clientAccountId: Int!, $kinds: [Kind!], $isActive: Boolean, $page: Int) { entries(clientAccountId: $clientAccountId, kinds: $kinds, isActive: $isActive, page: $page) { id } }', names: { kinds: 'kind' } }),
);
const create = compileOperation(
  testSchema,
  op({ method: 'POST', path: '/parents/:parent_id/entries', document: 'mutation CreateEntry($parentId: Int!, $input: EntryInput!, $dryRun: Boolean) { createEntry(parentId: $parentId, input: $input, dryRun: $dryRun) { id } }', names: { 'input.parentId': 'parent_id' } }),
);
const replace = compileOperation(
  testSchema,
  op({ method: 'PUT', path: '/entries/:id', document: 'mutation ReplaceEntry($id: Int!, $input: EntryInput!) { replaceEntry(id: $id, input: $input) { id client_account_id: clientAccountId created_at: createdAt lines } }' }),
);

function issuesOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof ValidationError) return e.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw e;
  }
  throw new Error('expected a ValidationError');
}

describe('alias paths', () => {
  it('an alias is served as the same operation, and must have the path’s parameters', () => {
    const document = 'mutation ReplaceEntry($id: Int!, $input: EntryInput!) { replaceEntry(id: $id, input: $input) { id } }';
    expect(compileOperation(testSchema, op({ method: 'PUT', path: '/entries/:id', aliases: ['/old-entries/:id'], document })).op.aliases).toEqual(['/old-entries/:id']);
    expect(() => compileOperation(testSchema, op({ method: 'PUT', path: '/entries/:id', aliases: ['/old-entries/:entry_id'], document }))).toThrow(/alias \/old-entries\/:entry_id must have the path's parameters/);
    expect(() => compileOperation(testSchema, op({ method: 'PUT', path: '/entries/:id', aliases: ['/entries'], document }))).toThrow(/must have the path's parameters/);
  });
});

describe('variables derived from the operation', () => {
  it('query parameters are parsed by their GraphQL type: Int, Boolean, enum lists in the comma/semicolon/space form', () => {
    const v = operationVariables(list, { params: {}, query: { client_account_id: '7', kind: 'draft;POSTED posted', is_active: 'false', page: '2' }, body: undefined });
    expect(v).toEqual({ clientAccountId: 7, kinds: ['DRAFT', 'POSTED', 'POSTED'], isActive: false, page: 2 });
  });

  it('an omitted parameter is left out so the schema default applies; null means null', () => {
    expect(operationVariables(list, { params: {}, query: { client_account_id: '7' }, body: undefined })).toEqual({ clientAccountId: 7 });
    expect(operationVariables(list, { params: {}, query: { client_account_id: '7', is_active: 'null' }, body: undefined })).toMatchObject({ isActive: null });
    expect(operationVariables(list, { params: {}, query: { client_account_id: '7', kind: 'null' }, body: undefined })).toMatchObject({ kinds: null });
  });

  it('a required parameter that is missing, a bad integer and an unknown enum value are all reported at once', () => {
    const issues = issuesOf(() => operationVariables(list, { params: {}, query: { kind: 'BOGUS', page: 'x' }, body: undefined }));
    expect(issues).toEqual(['client_account_id: is required', "page: must be an integer; got 'x'", expect.stringMatching(/^kind\.0: Value "BOGUS" does not exist/)]);
  });

  it('a nested body is converted snake_case → camelCase recursively, JSON values untouched', () => {
    const body = {
      client_account_id: 3,
      kind: 'DRAFT',
      metadata: { some_key: { deeper_key: 1 } },
      lines: [{ account_id: 1, posting_date: '2026-01-31', amount: '10.00', dimensions: [{ relation_type: 'PROJECT', relation_id: 4 }] }],
    };
    const v = operationVariables(create, { params: { parent_id: '9' }, query: { dry_run: 'true' }, body });
    expect(v).toEqual({
      parentId: 9,
      dryRun: true,
      input: {
        clientAccountId: 3,
        kind: 'DRAFT',
        parentId: 9,
        metadata: { some_key: { deeper_key: 1 } },
        lines: [{ accountId: 1, postingDate: '2026-01-31', amount: '10.00', dimensions: [{ relationType: 'PROJECT', relationId: 4 }] }],
      },
    });
  });

  it('unknown fields at any depth → 400 naming the field by its path', () => {
    const body = { client_account_id: 3, colour: 'red', lines: [{ account_id: 1, amount: '1', dimensions: [{ relation_type: 'P', relation_id: 1, extra: 1 }] }] };
    expect(issuesOf(() => operationVariables(create, { params: { parent_id: '9' }, query: {}, body }))).toEqual([
      'colour: is not a known field',
      'lines.0.dimensions.0.extra: is not a known field',
    ]);
  });

  it('missing nested required fields and wrong types are named with their path', () => {
    const body = { client_account_id: 'three', lines: [{ amount: '1' }] };
    expect(issuesOf(() => operationVariables(create, { params: { parent_id: '9' }, query: {}, body }))).toEqual([
      expect.stringMatching(/^client_account_id: Int cannot represent/),
      'lines.0.account_id: is required',
    ]);
  });

  it('a body field bound to a path parameter may repeat it but not contradict it', () => {
    const body = { client_account_id: 3, parent_id: 9, lines: [] };
    expect(operationVariables(create, { params: { parent_id: '9' }, query: {}, body })).toMatchObject({ input: { parentId: 9 } });
    expect(issuesOf(() => operationVariables(create, { params: { parent_id: '9' }, query: {}, body: { ...body, parent_id: 8 } }))).toEqual([
      "parent_id: must be the path's parent_id (9) when given",
    ]);
  });

  it('PUT ignores read-only fields a client echoes back from a GET, and nothing else', () => {
    const echoed = { id: 5, created_at: '2026-01-01T00:00:00Z', client_account_id: 3, lines: [] };
    expect(operationVariables(replace, { params: { id: '5' }, query: {}, body: echoed })).toEqual({ id: 5, input: { clientAccountId: 3, lines: [] } });
    expect(issuesOf(() => operationVariables(replace, { params: { id: '5' }, query: {}, body: { ...echoed, colour: 1 } }))).toEqual(['colour: is not a known field']);
  });

  it('a POST that `updates` (spec 001 "PUT or POST /departments/{id}") ignores them as PUT does; another POST does not', () => {
    const document = replace.op.document;
    const post = compileOperation(testSchema, op({ method: 'POST', path: '/entries/:id', document }));
    const updating = compileOperation(testSchema, op({ method: 'POST', path: '/entries/:id', document, updates: true }));
    const echoed = { id: 5, created_at: '2026-01-01T00:00:00Z', client_account_id: 3, lines: [] };
    expect(operationVariables(updating, { params: { id: '5' }, query: {}, body: echoed })).toEqual({ id: 5, input: { clientAccountId: 3, lines: [] } });
    expect(issuesOf(() => operationVariables(post, { params: { id: '5' }, query: {}, body: echoed }))).toEqual(['id: is not a known field', 'created_at: is not a known field']);
  });

  it('a body that is not an object is a 400', () => {
    expect(() => operationVariables(create, { params: { parent_id: '1' }, query: {}, body: [1] })).toThrow(ValidationError);
  });

  it('a route whose path parameter no variable reads does not compile', () => {
    expect(() => compileOperation(testSchema, op({ path: '/x/:other', document: list.op.document }))).toThrow(/:other/);
  });
});
