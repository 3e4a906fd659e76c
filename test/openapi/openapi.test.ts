import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import { compiledOperations } from '../../rest-adapter/index.ts';
import { requestBodySchema } from '../../src/openapi/json-schema.ts';
import { buildOpenApiDocument, openApiKey, type OpenApiParameter } from '../../src/openapi/openapi.ts';
import { operationPaths, withDefaults, withParameter } from '../../rest-adapter/operation.ts';
import { schema } from '../../src/schema.ts';
import { PACKAGE_VERSION } from '../../src/version.ts';
import { createResponseValidator, ResponseMismatchError, type ReceivedResponse } from '../support/openapi-validator.ts';
import { checkAgainstOpenApi, startTestApp, targets, type TestApp } from '../support/harness.ts';

// The OpenAPI 3.1 description of /api/v2 is generated from the operation table; the harness checks
// every REST answer of the suite against it.

const BASE = 'https://api.example.no';
const doc = buildOpenApiDocument(schema, { baseUrl: BASE });
const compiled = compiledOperations(schema);

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    expect(doc.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('names the API at BASE_URL/api/v2 with the package version', () => {
    expect(doc.servers).toEqual([{ url: `${BASE}/api/v2` }]);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: PACKAGE_VERSION });
    for (const topic of ['strings', 'YYYY-MM-DD', 'comma', '`with=', 'Idempotency-Key', 'Idempotent-Replayed: true', '409', '422', '"error"', 'RateLimit-Remaining', 'Retry-After'])
      expect(doc.info.description).toContain(topic);
  });

  it('has exactly the operations of the table', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    // besides the table: the presigned file URLs, public and served by their own route
    expect(documented.sort()).toEqual([...compiled.flatMap((c) => operationPaths(c.op).map((p) => `${c.op.method} ${openApiKey({ ...c.op, path: p })}`)), 'GET /files/{id}/{variant}'].sort());
  });

  it('an alias path is the same operation under an operationId of its own (worker tasks under /worker/tasks)', () => {
    const [primary, alias] = [doc.paths['/contributor/tasks/{id}/results'].post, doc.paths['/worker/tasks/{id}/results'].post];
    expect(primary.operationId).toBe('submit_worker_task_result');
    expect(alias).toEqual({ ...primary, operationId: 'submit_worker_task_result_at_worker' });
  });

  describe.each(compiled.map((c) => [`${c.op.method} ${c.op.path}`, c] as const))('%s', (_name, c) => {
    const operation = doc.paths[openApiKey(c.op)][c.op.method.toLowerCase()];
    const params = (operation.parameters ?? []).filter((p): p is OpenApiParameter => !('$ref' in p));

    it('operationId is the tool name; summary, tag (first path segment) and scope come from the entry', () => {
      expect(operation.operationId).toBe(c.toolName);
      expect(operation.summary).toBe(c.op.summary);
      expect(operation.tags).toEqual([c.op.path.split('/')[1]]);
      const scope = c.isMutation ? 'write' : 'read';
      // a public operation needs no token and names its own server (the base URL: its key is the whole path)
      if (c.op.public) expect(operation).toMatchObject({ security: [], servers: [{ url: BASE }] });
      else expect(operation.security).toEqual([{ bearer: [scope] }, { oauth2: [scope] }]);
    });

    it('every path parameter is required; every query variable is a query parameter typed by its GraphQL type', () => {
      const pathParams = [...c.op.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
      expect(params.filter((p) => p.in === 'path').map((p) => [p.name, p.required])).toEqual(pathParams.map((p) => [p, true]));
      for (const v of c.variables.filter((x) => x.source === 'query')) {
        const p = params.find((x) => x.in === 'query' && x.name === v.wire);
        expect(p, v.wire).toBeDefined();
        expect(p!.required).toBe(v.required);
        if (p!.schema.type === 'array') expect(p).toMatchObject({ style: 'form', explode: false });
        else expect(p!.style).toBeUndefined();
      }
    });

    it('`with` (or the name the operation gives it, documents: with_relations) is a comma-separated array of the allowed relations, with its default', () => {
      const w = params.find((p) => p.name === withParameter(c.op));
      if (!c.op.with) return expect(w).toBeUndefined();
      expect(w).toMatchObject({ in: 'query', style: 'form', explode: false, schema: { type: 'array', items: { enum: [...c.op.with.allowed] } } });
      // the default is what a request without it gets: the route's defaults and the relations it always embeds
      expect(w!.schema.default).toEqual(withDefaults(c.op).length ? withDefaults(c.op) : undefined);
      for (const r of c.op.with.always ?? []) expect(w!.description).toContain(`${r} always embedded`);
    });

    it('writes take an Idempotency-Key header (keys belong to users: not the public ones)', () => {
      expect(operation.parameters?.some((p) => '$ref' in p && p.$ref === '#/components/parameters/IdempotencyKey')).toBe(c.isMutation && !c.op.public);
    });

    it('the request body is the derived JSON body schema', () => {
      const body = requestBodySchema(c);
      if (!body) return expect(operation.requestBody).toBeUndefined();
      expect(operation.requestBody?.content['application/json'].schema).toEqual(body);
    });

    it("documents the entry's success status and its errors in the entry's shape", () => {
      const status = String(c.op.status ?? 200);
      expect(Object.keys(operation.responses)).toContain(status);
      // 204 No Content has no body to describe
      if (status === '204') expect(operation.responses[status]).not.toHaveProperty('content');
      // an operation answering files only (the SAF-T export) documents each file type instead of JSON
      else if (c.op.representations?.json === false) for (const type of Object.keys(c.op.representations.files)) expect(operation.responses[status]).toHaveProperty(['content', type, 'schema']);
      else expect(operation.responses[status]).toHaveProperty('content.application/json.schema');
      for (const s of ['400', '500', '503']) expect(operation.responses[s]).toBeDefined();
      // no token, no per-user limit on a public operation
      for (const s of ['401', '403', '429']) expect(operation.responses[s] !== undefined).toBe(!c.op.public);
      expect(operation.responses['404'] !== undefined).toBe(c.op.path.includes(':') || c.op.bodyNamesRecords === true);
      for (const [s, r] of Object.entries(operation.responses)) {
        if (Number(s) < 400) continue;
        const ref = (r as { $ref: string }).$ref;
        const schemaRef = doc.components.responses[ref.replace('#/components/responses/', '')].content!['application/json'].schema.$ref;
        expect(schemaRef).toBe(c.op.errorShape === 'envelope' ? '#/components/schemas/ErrorEnvelope' : '#/components/schemas/Error');
      }
    });
  });

  it('the per-user rate limit: every success carries RateLimit-*, every operation documents 429 with Retry-After', () => {
    const rateLimit = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'];
    for (const c of compiled.filter((x) => !x.op.public)) {
      const responses = doc.paths[openApiKey(c.op)][c.op.method.toLowerCase()].responses;
      const success = responses[String(c.op.status ?? 200)] as { headers: Record<string, unknown> };
      expect(Object.keys(success.headers)).toEqual(expect.arrayContaining(rateLimit));
      const tooMany = (responses['429'] as { $ref: string }).$ref.replace('#/components/responses/', '');
      expect(tooMany).toMatch(/^TooManyRequests/);
      expect(Object.keys(doc.components.responses[tooMany].headers!)).toEqual(['x-request-id', 'Retry-After', ...rateLimit]);
    }
  });

  it('spec 000 "Decimal amounts are returned as strings (except where a report row shows a JSON number)": the balance sheet\'s balance is a number, the other reports\' figures decimal strings', () => {
    type Schema = { type?: unknown; properties?: Record<string, Schema>; items?: Schema; pattern?: string };
    const body = (path: string): Schema => (doc.paths[path].get.responses['200'] as unknown as { content: { 'application/json': { schema: Schema } } }).content['application/json'].schema;
    expect(body('/reports/balance-sheet').items!.properties!.balance.type).toBe('number');
    const trial = body('/reports/trial-balance').items!.properties!;
    for (const key of ['incoming_balance', 'debit', 'credit', 'outgoing_balance']) expect(trial[key], key).toMatchObject({ type: 'string', pattern: expect.any(String) });
    const ledger = body('/reports/general-ledger').properties!.data.items!.properties!;
    for (const key of ['debit', 'credit', 'debit_amount', 'exchange_rate', 'reconciled_amount', 'tax_amount', 'tax_base_amount']) expect(String(ledger[key].type), key).toMatch(/^string/);
    for (const key of ['incoming_balance', 'outgoing_balance', 'movement']) expect(ledger.grouping.properties![key].type, key).toBe('string');
    // no other answer shows a Decimal as a number
    const numbers: string[] = [];
    const walk = (schema: Schema | undefined, where: string) => {
      if (!schema || typeof schema !== 'object') return;
      if (schema.type === 'number' || (Array.isArray(schema.type) && schema.type.includes('number'))) numbers.push(where);
      for (const [k, v] of Object.entries(schema.properties ?? {})) walk(v, `${where}.${k}`);
      walk(schema.items, `${where}[]`);
    };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const response of Object.values(op.responses)) walk((response as { content?: { 'application/json'?: { schema: Schema } } }).content?.['application/json']?.schema, `${method.toUpperCase()} ${path}`);
      }
    }
    for (const [name, schema] of Object.entries(doc.components.schemas)) walk(schema as Schema, name);
    expect(numbers).toEqual(['GET /reports/balance-sheet[].balance']);
  });

  it('lists share one PageMeta component: {page, pages, per_page, records}', () => {
    expect(doc.components.schemas.PageMeta).toMatchObject({ required: expect.arrayContaining(['page', 'pages', 'per_page', 'records']) });
    const list = doc.paths['/items'].get.responses['200'] as unknown as { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } };
    expect(list.content['application/json'].schema.properties.meta).toEqual({ $ref: '#/components/schemas/PageMeta' });
  });

  it('security: OAuth 2.0 (authorization code + PKCE, client credentials; read and write) and HTTP bearer', () => {
    expect(doc.components.securitySchemes).toEqual({
      oauth2: {
        type: 'oauth2',
        description: expect.any(String),
        flows: {
          authorizationCode: {
            authorizationUrl: `${BASE}/v2/oauth/authorize`,
            tokenUrl: `${BASE}/v2/oauth/token`,
            refreshUrl: `${BASE}/v2/oauth/token`,
            scopes: { read: expect.any(String), write: expect.any(String) },
          },
          clientCredentials: { tokenUrl: `${BASE}/v2/oauth/token`, scopes: { read: expect.any(String), write: expect.any(String) } },
        },
      },
      bearer: { type: 'http', scheme: 'bearer', description: expect.stringContaining('/v2/oauth/login') },
    });
  });
});

describe('the response check the harness runs on every /api/v2 answer', () => {
  const check = createResponseValidator(doc);
  const unit = { id: 1, symbol: 'stk', un_ece_rec_20_code: 'H87', un_ece_rec_21_code: null, description: 'piece' };
  const res = (r: Pick<ReceivedResponse, 'method' | 'path' | 'status'>, body: unknown): ReceivedResponse => ({
    contentType: 'application/json; charset=utf-8',
    text: JSON.stringify(body),
    ...r,
  });
  const failure = (r: ReceivedResponse): string => {
    try {
      check(r);
    } catch (e) {
      expect(e).toBeInstanceOf(ResponseMismatchError);
      return (e as Error).message;
    }
    throw new Error('expected a mismatch');
  };

  it('accepts a body that matches', () => {
    expect(() => check(res({ method: 'GET', path: '/api/v2/units/1', status: 200 }, unit))).not.toThrow();
    expect(() => check(res({ method: 'GET', path: '/api/v2/units?page=2', status: 200 }, { data: [unit], meta: { page: 2, pages: 2, per_page: 1, records: 2 } }))).not.toThrow();
    expect(() => check(res({ method: 'GET', path: '/api/v2/units/1', status: 404 }, { error: 'Unit not found', status: 404 }))).not.toThrow();
  });

  it('a wrong body fails, naming the operation, the status, what does not match and the start of the body', () => {
    const message = failure(res({ method: 'GET', path: '/api/v2/units/1', status: 200 }, { ...unit, id: '1', colour: 'red' }));
    expect(message).toContain('GET /api/v2/units/1 (get_unit) answered 200');
    expect(message).toContain('/id must be integer');
    expect(message).toContain('additionalProperty":"colour"');
    expect(message).toContain('body: {"id":"1"');
  });

  it('a page whose meta lacks a field fails (the PageMeta component)', () => {
    expect(failure(res({ method: 'GET', path: '/api/v2/units', status: 200 }, { data: [], meta: { page: 1, per_page: 100, records: 0 } }))).toMatch(/\/meta must have required property 'pages'/);
  });

  it('an undocumented status fails', () => {
    expect(failure(res({ method: 'GET', path: '/api/v2/units', status: 404 }, { error: 'x', status: 404 }))).toMatch(/list_units.*status 404 is not documented/);
  });

  it('an error in another shape fails', () => {
    expect(failure(res({ method: 'POST', path: '/api/v2/items', status: 400 }, { error: { code: 'x', message: 'y', request_id: 'z' } }))).toContain('create_item');
  });

  it('a body that is no JSON, or no application/json, fails', () => {
    expect(failure({ method: 'GET', path: '/api/v2/units/1', status: 200, contentType: 'text/html', text: '<p>' })).toMatch(/content-type text\/html/);
  });

  it('paths and methods without an operation must answer {error, status}', () => {
    expect(() => check(res({ method: 'GET', path: '/api/v2/nowhere', status: 404 }, { error: 'No such endpoint', status: 404 }))).not.toThrow();
    expect(() => check(res({ method: 'PATCH', path: '/api/v2/items', status: 405 }, { error: 'Method PATCH is not allowed', status: 405 }))).not.toThrow();
    expect(failure(res({ method: 'GET', path: '/api/v2/nowhere', status: 200 }, {}))).toMatch(/must answer an error/);
    expect(failure(res({ method: 'PATCH', path: '/api/v2/items', status: 405 }, { message: 'no' }))).toMatch(/no PATCH operation on \/items/);
  });

  it("is the check the harness's http() runs (on the document built by the same code)", () => {
    const wrong = res({ method: 'GET', path: '/api/v2/units/1', status: 200 }, { ...unit, symbol: 7 });
    expect(() => checkAgainstOpenApi(wrong)).toThrow(ResponseMismatchError);
    expect(() => checkAgainstOpenApi(wrong)).toThrow(/get_unit.*\n.*\/symbol must be string/);
  });

  it('leaves other entry points alone', () => {
    expect(() => check(res({ method: 'POST', path: '/graphql', status: 200 }, { data: {} }))).not.toThrow();
    expect(() => check(res({ method: 'POST', path: '/public/v2/oauth/token', status: 200 }, { access_token: 'x' }))).not.toThrow();
  });

  it('checks the public operations at their whole path (their own server is the base URL)', () => {
    const summary = { id: 1, invited_email: 'a@b.no', status: 'PENDING', expires_at: '2026-01-01T00:00:00.000Z', is_expired: false, can_be_accepted: true, client_account: { id: 1, display_name: 'A', unique_name: 'a' }, role: { id: 5, name: 'EM' } };
    const token = 'f'.repeat(64);
    expect(() => check(res({ method: 'GET', path: `/public/v2/invitations/${token}`, status: 200 }, summary))).not.toThrow();
    expect(() => check(res({ method: 'GET', path: `/public/v2/invitations/${token}`, status: 404 }, { error: 'Invitation not found', status: 404 }))).not.toThrow();
    expect(failure(res({ method: 'GET', path: `/public/v2/invitations/${token}`, status: 200 }, { ...summary, token }))).toMatch(/get_public_invitation.*\n.*additionalProperty":"token"/);
    expect(failure(res({ method: 'GET', path: `/public/v2/invitations/${token}`, status: 401 }, { error: 'x', status: 401 }))).toMatch(/status 401 is not documented/);
    expect(failure(res({ method: 'GET', path: `/public/v2/invitations/${token}/accept`, status: 200 }, {}))).toMatch(/no GET operation on \/public\/v2\/invitations\/\{token\}\/accept/);
  });
});

describe.each(targets())('GET /api/v2/openapi.json and /api/v2/docs (%s)', (target) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(target);
  });
  afterAll(() => app?.close());

  it('the document needs no token and names the app at its BASE_URL', async () => {
    const res = await app.http('GET', '/api/v2/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(schema, { baseUrl: app.url }))));
    expect(res.body.servers).toEqual([{ url: `${app.url}/api/v2` }]);
  });

  it('the docs page needs no token, has no inline script, and the app serves every asset it names', async () => {
    const page = await app.http('GET', '/api/v2/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect([...page.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].every(([, attrs, content]) => /\bsrc=/.test(attrs) && content.trim() === '')).toBe(true);
    const urls = [...page.text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1], `${app.url}/api/v2/docs`));
    expect(urls.map((u) => u.pathname)).toEqual(expect.arrayContaining(['/api/v2/docs/assets/swagger-ui.css', '/api/v2/docs/assets/swagger-ui-bundle.js', '/api/v2/docs/init.js']));
    for (const u of urls) {
      expect(u.origin).toBe(app.url);
      const asset = await app.http('GET', u.pathname);
      expect(asset.status, u.pathname).toBe(200);
      expect(asset.text.length, u.pathname).toBeGreaterThan(0);
    }
    const init = await app.http('GET', '/api/v2/docs/init.js');
    expect(init.headers.get('content-type')).toMatch(/javascript/);
    expect(init.text).toContain("'openapi.json'");
    expect((await app.http('GET', '/api/v2/docs/assets/oauth2-redirect.html')).status).toBe(200);
  });

  it('serves nothing else of swagger-ui-dist; /docs/ goes to /docs', async () => {
    for (const path of ['/api/v2/docs/assets/package.json', '/api/v2/docs/assets/index.html', '/api/v2/docs/assets/swagger-initializer.js', '/api/v2/docs/assets/..%2Fpackage.json']) {
      expect(await app.http('GET', path), path).toMatchObject({ status: 404, body: { status: 404 } });
    }
    const slash = await fetch(`${app.url}/api/v2/docs/`, { redirect: 'manual' });
    expect(slash.status).toBe(301);
    expect(new URL(slash.headers.get('location')!, `${app.url}/api/v2/docs/`).pathname).toBe('/api/v2/docs');
  });

  it('the rest of /api/v2 still needs a token', async () => {
    expect((await app.http('GET', '/api/v2/units')).status).toBe(401);
    expect((await app.http('POST', '/api/v2/openapi.json')).status).toBe(401);
  });
});
