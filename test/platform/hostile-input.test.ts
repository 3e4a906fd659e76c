import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// Hardening: "A NUL byte gives 500 on 23 endpoints … refuse it at the edge with a 400 naming the field,
// once for every entry point"; "Bound JSON nesting depth for every body, never echo unbounded input".

const deep = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;

describe.each(targets())('hostile input is refused at the edge (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let vat: number;

  beforeAll(async () => {
    app = await startTestApp(target);
    t = await app.seed.tenant();
    vat = await t.taxCode('3');
  });
  afterAll(() => app?.close());

  const item = (extra: Record<string, unknown>) => ({ client_account_id: t.account.id, item_no: 'N-1', sales_unit_id: 1, tax_code_id: vat, ...extra });

  it.each([
    ['item_no: "a\\u0000b"', { item_no: 'a\u0000b' }, 'item_no'],
    ['metadata: {"a": "\\u0000"}', { metadata: { a: '\u0000' } }, 'metadata.a'],
    ['a NUL in a metadata key', { metadata: { 'k\u0000': 1 } }, 'metadata.k\\u0000'],
  ])('POST /api/v2/items with %s → 400 naming the field', async (_name, extra, field) => {
    const res = await app.http('POST', '/api/v2/items', { token: t.user.token, body: item(extra) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: `${field}: must not contain the NUL character (U+0000)${field.includes('k\\u0000') ? ' in its name' : ''}`, status: 400 });
  });

  it.each([
    ['metadata: {"a": "\\ud800"}', '{"a": "\\ud800"}', 'metadata.a: must be valid Unicode'],
    ['a lone surrogate as a metadata key', '{"\\udc00": 1}', 'metadata.\\udc00: must be valid Unicode'],
  ])('POST /api/v2/items with %s → 400 naming the field (PostgreSQL refuses it in jsonb: it was a 500)', async (_name, metadata, message) => {
    const body = JSON.stringify(item({})).replace(/}$/, `, "metadata": ${metadata}}`);
    const res = await app.http('POST', '/api/v2/items', { token: t.user.token, body });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(message);
  });

  it('a lone surrogate in a GraphQL variable → 400, not stored as U+FFFD', async () => {
    const res = await app.http('POST', '/graphql', { token: t.user.token, body: { query: 'mutation($i: UpdateMeInput!) { updateMe(input: $i) { id } }', variables: { i: { firstName: 'a\ud800' } } } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe('variables.i.firstName: must be valid Unicode: a lone surrogate (U+D800 to U+DFFF without its pair) is no character');
  });

  it('GET /api/v2/items?free_text=%00 → 400 naming free_text', async () => {
    const res = await app.http('GET', `/api/v2/items?client_account_id=${t.account.id}&free_text=%00`, { token: t.user.token });
    expect(res).toMatchObject({ status: 400, body: { error: 'free_text: must not contain the NUL character (U+0000)', status: 400 } });
  });

  it.each([
    ['POST /v2/oauth/token client_id=%00', '/v2/oauth/token', 'grant_type=client_credentials&client_id=%00', 'application/x-www-form-urlencoded'],
    ['POST /v2/oauth/revoke token=%00', '/v2/oauth/revoke', 'token=%00&client_id=x', 'application/x-www-form-urlencoded'],
    ['POST /v2/oauth/login with a NUL in the email', '/v2/oauth/login', JSON.stringify({ email: 'a\u0000@b.no', password: 'x' }), 'application/json'],
    ['POST /v2/oauth/register with a NUL in client_name', '/v2/oauth/register', JSON.stringify({ client_name: '\u0000', redirect_uris: ['https://x.example/cb'] }), 'application/json'],
  ])('%s → 400 in the OAuth shape', async (_name, path, body, type) => {
    const res = await app.http('POST', path, { body, headers: { 'content-type': type } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('NUL') });
  });

  it.each([
    ['a literal in the document', { query: '{ currency(code: "N\\u0000K") { code } }' }],
    ['a variable', { query: 'query($c: String!) { currency(code: $c) { code } }', variables: { c: 'N\u0000K' } }],
    ['a mutation input', { query: 'mutation($i: UpdateMeInput!) { updateMe(input: $i) { id } }', variables: { i: { firstName: 'x\u0000' } } }],
  ])('GraphQL: a NUL in %s → 400 as a GraphQL response, nothing runs', async (_name, body) => {
    const res = await app.http('POST', '/graphql', { token: t.user.token, body });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ message: expect.stringContaining('NUL'), extensions: { code: 'common.validation_error' } });
  });

  it('a body nested 5,000 deep → 400 naming the limit, without echoing the input', async () => {
    const body = JSON.stringify(item({})).replace('"item_no":"N-1"', `"item_no":${deep(5000)}`);
    const res = await app.http('POST', '/api/v2/items', { token: t.user.token, body });
    expect(res).toMatchObject({ status: 400, body: { error: 'body: nests deeper than 32 levels', status: 400 } });
    expect(res.text.length).toBeLessThan(200);
  });

  it('GraphQL variables nested 2,000 deep → 400', async () => {
    const res = await app.http('POST', '/graphql', { token: t.user.token, body: `{"query":"query($v: [Int]) { __typename }","variables":{"v":${deep(2000)}}}` });
    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(300);
  });

  it('a GraphQL literal nested 5,000 deep → 400 before the parser recurses into it (it overflowed the stack: 500)', async () => {
    const res = await app.http('POST', '/graphql', { token: t.user.token, body: { query: `{ currency(code: ${deep(5000)}) { code } }` } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ extensions: { code: 'common.query_too_complex', limit: { name: 'nesting', max: 64 } } });
  });

  it.each([
    ['REST, a value graphql-js quotes', () => app.http('POST', '/api/v2/items', { token: t.user.token, body: item({ item_type: 'x'.repeat(1_000_000) }) })],
    ['GraphQL, a literal graphql-js quotes', () => app.http('POST', '/graphql', { token: t.user.token, body: { query: `{ item(id: "${'x'.repeat(1_000_000)}") { id } }` } })],
    ['GraphQL, a variable graphql-js quotes', () => app.gql(t.user.token, 'query($id: Int!) { item(id: $id) { id } }', { id: 'x'.repeat(1_000_000) }).then((body) => ({ status: 400, body, text: JSON.stringify(body) }))],
    ['GraphQL, a value a service names', () => app.http('POST', '/graphql', { token: t.user.token, body: { query: `{ currency(code: "${'x'.repeat(1_000_000)}") { code } }` } })],
  ])('%s: a 1 MB value is cut in the error, never echoed whole', async (_name, send) => {
    const res = await send();
    expect(res.body.error ?? res.body.errors).toBeTruthy();
    expect(res.text.length).toBeLessThan(1000);
    expect(res.text.toLowerCase()).toContain('xxx…');
  });

  it('a list of 70,000 ids → 400: more bind parameters than the database takes was a 500', async () => {
    const collection = await app.seed.prisma.itemCollection.create({ data: { clientAccountId: t.account.id, collectionType: 'CART' } });
    const res = await app.gql(t.user.token, 'query($c: Int!, $ids: [Int!]) { itemCollectionEntries(itemCollectionId: $c, itemIds: $ids) { meta { records } } }', {
      c: collection.id,
      ids: Array.from({ length: 70_000 }, (_, i) => i + 1),
    });
    expect(res.errors?.[0]).toMatchObject({ message: expect.stringContaining('too many values'), extensions: { code: 'common.validation_error' } });
  });

  it('100,000 bad ids → one 400 listing the first 20 issues, not a 10 MB answer', async () => {
    const account = await t.ledgerAccount('1920');
    const res = await app.http('POST', '/graphql', {
      token: t.user.token,
      body: { query: `mutation($i: UpdateAccountInput!) { updateAccount(id: ${account}, input: $i) { id } }`, variables: { i: { allowedTaxCodeIds: Array.from({ length: 100_000 }, (_, i) => 1_000_000 + i) } } },
    });
    expect(res.body.errors[0].extensions.issues).toHaveLength(20);
    expect(res.text.length).toBeLessThan(10_000);
  });

  it('order_by names every plain object has (constructor, __proto__) are no fields: 400, also on GraphQL', async () => {
    const res = await app.gql(t.user.token, `{ items(clientAccountId: ${t.account.id}, orderBy: ["__proto__"]) { meta { records } } }`);
    expect(res.errors?.[0].extensions?.code).toBe('common.validation_error');
    const units = await app.http('GET', '/api/v2/units?order_by=constructor', { token: t.user.token });
    expect(units.status).toBe(400);
  });

  it.each([
    ['variables={', '/graphql?query=%7B__typename%7D&variables=%7B', 400, 'variables: must be a JSON object'],
    ['extensions={', '/graphql?query=%7B__typename%7D&extensions=%7B', 400, 'extensions: must be a JSON object'],
    ['a path below /graphql', '/graphql/x', 404, 'No such endpoint: GET /graphql/x'],
  ])('GET /graphql with %s → 4xx as a GraphQL response', async (_name, path, status, message) => {
    const res = await app.http('GET', path, { token: t.user.token, headers: { accept: 'application/json' } });
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ errors: [{ message, extensions: { code: expect.any(String) } }] });
  });

  // Issue 26: "a NUL byte in any path segment (e.g. DELETE /v2/oauth/clients/%00, a 500 today) is a 4xx — make this
  // general: any path anywhere … with a percent-encoded NUL (or other control characters / malformed
  // percent-encoding) answers a 4xx in that path's error shape, never 500".
  const PATH_SHAPES: [string, 'GET' | 'POST' | 'DELETE', string, (body: any) => void][] = [
    ['OAuth', 'DELETE', '/v2/oauth/clients/X', (b) => expect(b).toEqual({ error: 'invalid_request', error_description: expect.any(String) })],
    ['OAuth (public)', 'GET', '/public/v2/oauth/X', (b) => expect(b).toEqual({ error: 'invalid_request', error_description: expect.any(String) })],
    ['OAuth authorize', 'GET', '/v2/oauth/authorize/X', (b) => expect(b).toEqual({ error: 'invalid_request', error_description: expect.any(String) })],
    ['REST', 'GET', '/api/v2/items/X', (b) => expect(b).toEqual({ error: expect.any(String), status: 400 })],
    ['REST, the v2 envelope (voucher delete)', 'DELETE', '/api/v2/vouchers/X', (b) => expect(b).toEqual({ error: { code: 'common.validation_error', message: expect.any(String), request_id: expect.any(String) } })],
    ['REST, public', 'GET', '/public/v2/invitations/X', (b) => expect(b).toEqual({ error: expect.any(String), status: 400 })],
    ['GraphQL', 'GET', '/graphql/X', (b) => expect(b).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'common.validation_error' } }] })],
    ['MCP', 'POST', '/mcp/X', (b) => expect(b).toEqual({ error: expect.any(String), status: 400 })],
    ['discovery', 'GET', '/.well-known/oauth-protected-resource/X', (b) => expect(b).toEqual({ error: expect.any(String), status: 400 })],
    ['the portal callback', 'GET', '/public/v2/integrations/X/callback', (b) => expect(b).toEqual({ error: expect.any(String), status: 400 })],
  ];
  const BAD_SEGMENTS: [string, string, RegExp][] = [
    ['a NUL', '%00', /control characters/],
    ['a NUL inside a segment', 'a%00b', /control characters/],
    ['a line feed', 'a%0Ab', /control characters/],
    ['a tab', '%09', /control characters/],
    ['DEL', '%7F', /control characters/],
    ['a lone %', '%', /malformed percent-encoding/],
    ['% not followed by hex', '%ZZ', /malformed percent-encoding/],
    ['a cut UTF-8 sequence', '%E0%A4%A', /malformed percent-encoding/],
    ['an overlong NUL', '%C0%80', /malformed percent-encoding/],
    ['a lone surrogate', '%ED%A0%80', /malformed percent-encoding/],
  ];
  it.each(PATH_SHAPES)(
    'spec 000: "400 invalid request" — %s: a path segment with control characters or malformed percent-encoding is 400 in that path’s error shape, never 500',
    async (_name, method, path, shape) => {
      for (const [what, segment, message] of BAD_SEGMENTS) {
        const res = await fetch(`${app.url}${path.replace('X', segment)}`, {
          method,
          headers: { authorization: `Bearer ${t.user.token}`, accept: 'application/json', 'content-type': 'application/json' },
          body: method === 'POST' ? '{}' : undefined,
          redirect: 'manual',
        });
        expect(res.status, `${what}: ${method} ${path.replace('X', segment)}`).toBe(400);
        const body = await res.json();
        shape(body);
        expect(JSON.stringify(body), what).toMatch(message);
        expect(res.headers.get('x-request-id')).toEqual(expect.any(String));
      }
    },
  );

  it('spec 000 "DELETE /v2/oauth/clients/{client_id}": DELETE /v2/oauth/clients/%00 → 400 invalid_request (it was a 500); an ordinary unknown id is still 404', async () => {
    const session = t.user.token; // a session token, as POST /v2/oauth/login gives
    const nul = await app.http('DELETE', '/v2/oauth/clients/%00', { token: session });
    expect(nul).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: expect.stringContaining('control characters') } });
    expect(await app.http('DELETE', '/v2/oauth/clients/no-such-client', { token: session })).toMatchObject({ status: 404, body: { error: 'not_found' } });
  });

  it('encoded characters that are no control characters still reach the routes (%20, %2F, UTF-8)', async () => {
    expect((await app.http('GET', '/api/v2/items/%20', { token: t.user.token })).body.error).toMatch(/^id: must be an integer/);
    expect((await app.http('GET', '/public/v2/invitations/%C3%A6%2F', {})).status).toBe(404);
  });

  it.each([
    ['text/plain', { 'content-type': 'text/plain' }],
    ['no content type', {}],
  ])('POST /graphql as %s → 415 as a GraphQL response', async (_name, headers) => {
    const res = await fetch(`${app.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${t.user.token}`, ...headers }, body: '{"query":"{ __typename }"}' });
    expect(res.status).toBe(415);
    expect((await res.json()).errors[0].extensions.code).toBe('common.unsupported_media_type');
  });

  // "431 from Node's header limit as plain text. Every error the app can shape is JSON in the route's error shape."
  it.each([
    ['/api/v2/items', { error: 'The request headers are too large (at most 16 KB in all)', status: 431 }],
    ['/graphql', { errors: [{ message: 'The request headers are too large (at most 16 KB in all)', extensions: { code: 'common.request_rejected' } }] }],
    ['/v2/oauth/token', { error: 'invalid_request', error_description: 'The request headers are too large (at most 16 KB in all)' }],
  ])('GET %s with 20 KB of headers → 431 as JSON in the route’s error shape', async (path, body) => {
    const res = await fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${t.user.token}`, 'x-padding': 'a'.repeat(20_000) } });
    expect(res.status).toBe(431);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual(body);
  });

  it('a malformed request line → 400 as JSON', async () => {
    const { connect } = await import('node:net');
    const socket = connect(Number(new URL(app.url).port), '127.0.0.1');
    socket.write('GET /api/v2/items HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
    const raw = await new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('close', () => resolve(text));
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'Malformed HTTP request', status: 400 });
  });

  it.each([
    ['with a Content-Length', (body: string) => fetch(`${app.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${t.user.token}`, 'content-type': 'application/json' }, body })],
    [
      'chunked',
      (body: string) =>
        fetch(`${app.url}/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${t.user.token}`, 'content-type': 'application/json' },
          body: new Blob([body]).stream(),
          duplex: 'half',
        } as RequestInit),
    ],
  ])('POST /graphql with a 2 MB body (%s) → 413 as a GraphQL response, like /api/v2 and /mcp', async (_name, send) => {
    const res = await send(JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(2_000_000) } }));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ errors: [{ message: 'The request body is too large', extensions: { code: expect.any(String) } }] });
  });

  it('POST /graphql with a body under 1 MB still works, chunked too', async () => {
    const body = JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(500_000) } });
    const res = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.user.token}`, 'content-type': 'application/json' },
      body: new Blob([body]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it('order_by naming more fields than the list has → 400 (100,000 names were one huge ORDER BY)', async () => {
    const fewer = await app.http('GET', `/api/v2/units?order_by=${Array(50).fill('name').join(',')}`, { token: t.user.token });
    expect(fewer).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^order_by: names at most \d+ fields$/), status: 400 } });
  });
});
