import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/modules/users/users.service.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';

// POST /v2/oauth/login (issue: "Authentication plumbing"); OAuth error shape {error, error_description}.
describe.each(targets())('login and bearer middleware (%s)', (target) => {
  let app: TestApp;
  const email = `login-${Date.now()}-${target}@test.example`;

  beforeAll(async () => {
    app = await startTestApp(target);
    await createUser(app.seed.system, { input: { email, password: 'correct horse battery' } });
  });
  afterAll(() => app?.close());

  it('200 {access_token, token_type: "Bearer", expires_in} for the right password; the token reads and writes', async () => {
    const res = await app.http('POST', '/v2/oauth/login', { body: { email: email.toUpperCase(), password: 'correct horse battery' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.stringMatching(/^rs_/), token_type: 'Bearer', expires_in: 3600 });
    expect(res.headers.get('cache-control')).toBe('no-store');
    const me = await app.gql(res.body.access_token, '{ me { user { email } scopes } }');
    expect(me.data.me).toEqual({ user: { email }, scopes: ['read', 'write'] });
  });

  it.each([
    ['a wrong password', { email, password: 'wrong password!' }],
    ['an unknown email', { email: 'nobody@test.example', password: 'whatever123' }],
  ])('401 invalid_grant for %s', async (_n, body) => {
    const res = await app.http('POST', '/v2/oauth/login', { body });
    expect(res).toMatchObject({ status: 401, body: { error: 'invalid_grant', error_description: expect.any(String) } });
  });

  it.each([
    ['no body', undefined],
    ['a missing password', { email }],
    ['a non-string email', { email: 5, password: 'x' }],
  ])('400 invalid_request for %s', async (_n, body) => {
    const res = await app.http('POST', '/v2/oauth/login', { body });
    expect(res).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  it('400 invalid_request-style JSON (never HTML) for malformed JSON', async () => {
    const res = await app.http('POST', '/v2/oauth/login', { body: '{"email":' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/json');
  });

  it('/graphql: 401 without a token for API requests; GraphiQL page for a browser GET', async () => {
    const res = await app.http('POST', '/graphql', { body: { query: '{ me { scopes } }' } });
    expect(res).toMatchObject({ status: 401, body: { errors: [{ extensions: { code: 'common.unauthenticated' } }] } });
    const page = await app.http('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<html');
  });

  it('an expired session token is refused with 401', async () => {
    const t = await app.seed.user();
    await app.db.prisma.session.updateMany({ where: { userId: t.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await app.http('POST', '/graphql', { token: t.token, body: { query: '{ me { scopes } }' } })).status).toBe(401);
  });

  it('unknown paths answer 404 JSON; a known path with another method answers 405 with Allow', async () => {
    const t = await app.seed.user();
    const res = await app.http('GET', '/api/v2/nope', { token: t.token });
    expect(res).toMatchObject({ status: 404, body: { status: 404 } });
    const root = await app.http('GET', '/nope');
    expect(root).toMatchObject({ status: 404, body: { status: 404 } });
    const patch = await app.http('PATCH', '/api/v2/items', { token: t.token, body: {} });
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toContain('GET');
  });
});
