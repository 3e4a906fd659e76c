import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireInvitations } from '../../src/modules/invitations/invitations.job.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// spec 002 "Invitation" (fields, relations, roles), "States and transitions" (the four Invitation
// rows) and "Invitations" (the six endpoints and their errors). Error body `{error, status}`.
const DAY = 24 * 3600 * 1000;
const uniq = () => Math.random().toString(36).slice(2, 10);

describe.each(targets())('invitations REST (%s)', (target) => {
  let app: TestApp;
  /** a company with its owner (CA) */
  let t: Tenant;
  /** another company, its owner a stranger to t */
  let other: Tenant;
  /** an accounting firm (69.201) with an accountant (AA) */
  let firm: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
    firm = await app.seed.tenant({ role: 'AA', industryCode: '69.201' });
  });
  afterAll(() => app?.close());

  const api = (method: string, path: string, body?: unknown, token: string | undefined = t.user.token, headers?: Record<string, string>) =>
    app.http(method, `/api/v2${path}`, { token, body, headers });
  const pub = (method: string, path: string, body?: unknown) => app.http(method, `/public/v2${path}`, { body });
  const invite = (body: Record<string, unknown> = {}, token = t.user.token) => api('POST', '/invitations', { email: `ny-${uniq()}@example.no`, client_account_id: t.account.id, role_id: 5, ...body }, token);
  const invited = async (body: Record<string, unknown> = {}, token = t.user.token) => {
    const res = await invite(body, token);
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const newUser = (extra: Record<string, unknown> = {}) => ({ first_name: 'Kari', last_name: 'Nordmann', email: `kari-${uniq()}@example.no`, password: 'et langt passord', ...extra });
  const accept = (token: string, body: unknown = newUser()) => pub('POST', `/invitations/${token}/accept`, body);
  /** moves an invitation's expiry into the past, as 7 days would */
  const expire = (id: number) => app.db.prisma.invitation.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });
  const error = (status: number, message?: RegExp) => ({ error: message ? expect.stringMatching(message) : expect.any(String), status });

  describe('POST /invitations', () => {
    it('201 with every field of the invitation, token included: PENDING, expires_at 7 days after created_at, the relations', async () => {
      const res = await invite({ email: '  Per.Hansen@Example.NO ', role_id: 3 });
      expect(res.status, res.text).toBe(201);
      const me = await app.db.prisma.user.findUniqueOrThrow({ where: { id: t.user.id } });
      expect(res.body).toEqual({
        id: expect.any(Number),
        created_at: expect.any(String),
        updated_at: expect.any(String),
        invited_email: 'per.hansen@example.no',
        client_account_id: t.account.id,
        role_id: 3,
        token: expect.stringMatching(/^[0-9a-f]{64}$/),
        status: 'PENDING',
        expires_at: expect.any(String),
        invited_by_id: t.user.id,
        accepted_by_id: null,
        accepted_at: null,
        is_expired: false,
        is_pending: true,
        can_be_accepted: true,
        client_account: { id: t.account.id, display_name: t.account.displayName, unique_name: expect.any(String) },
        role: { id: 3, name: 'CA' },
        invited_by: { id: t.user.id, first_name: me.firstName, last_name: me.lastName, email: t.user.email },
      });
      expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(7 * DAY);
    });

    it('"token: 64 characters, secret": a new random one each time', async () => {
      const tokens = new Set<string>();
      for (let i = 0; i < 5; i++) tokens.add((await invited()).token);
      expect(tokens.size).toBe(5);
    });

    it.each<[string, number, 'company' | 'provider', number]>([
      ['AA (accountant) on a provider account', 2, 'provider', 201],
      ['CA (client account owner) on a provider account', 3, 'provider', 201],
      ['BK (bookkeeper) on a provider account', 4, 'provider', 201],
      ['EM (employee) on a provider account', 5, 'provider', 201],
      ['AA on a company: "provider accounts only"', 2, 'company', 400],
      ['CA on a company: "all accounts"', 3, 'company', 201],
      ['BK on a company: "provider accounts only"', 4, 'company', 400],
      ['EM on a company: "all accounts"', 5, 'company', 201],
    ])('role %s → %i', async (_name, roleId, kind, status) => {
      const owner = kind === 'provider' ? firm : t;
      const res = await invite({ client_account_id: owner.account.id, role_id: roleId }, owner.user.token);
      expect(res.status, res.text).toBe(status);
      if (status === 400) expect(res.body).toEqual(error(400, /role_id: (AA|BK) .*can only be held on a provider account \(industry code 69\.2xx\)/));
      else expect(res.body.role).toEqual({ id: roleId, name: ['AA', 'CA', 'BK', 'EM'][roleId - 2] });
    });

    it.each<[string, Record<string, unknown>, RegExp]>([
      ['email missing', { email: undefined }, /^email: is required$/],
      ['client_account_id missing', { client_account_id: undefined }, /^client_account_id: is required$/],
      ['role_id missing', { role_id: undefined }, /^role_id: is required$/],
      ['an email that is no address', { email: 'per.hansen' }, /^email: must be a valid email address$/],
      ['role_id 1 (no such role)', { role_id: 1 }, /^role_id: must be 2 \(AA/],
      ['role_id 6 (no such role)', { role_id: 6 }, /^role_id: must be 2 \(AA/],
      ['an unknown field', { language: 'en' }, /^language: is not a known field$/],
    ])('400 "missing field" and bad values: %s', async (_name, body, message) => {
      const res = await invite(body);
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual(error(400, message));
    });

    it('400 "user already exists": the invited address belongs to a user (who gets a role with grantRole instead)', async () => {
      const res = await invite({ email: other.user.email.toUpperCase() });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(error(400, /^email: a user with the e-mail address .* already exists: give that user the role with grantRole instead$/));
    });

    it('"401 or 403 no permission": no token 401; a read-only token, an employee (EM), another account\'s owner 403', async () => {
      expect((await app.http('POST', '/api/v2/invitations', { body: { email: 'x@example.no', client_account_id: t.account.id, role_id: 5 } })).status).toBe(401);
      expect((await invite({}, t.user.readToken)).status).toBe(403);
      const employee = await app.seed.user();
      await app.seed.grantRole({ userId: employee.id, clientAccountId: t.account.id, role: 'EM' });
      const res = await invite({}, employee.token);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(error(403, /cannot manage client account/));
      expect((await invite({}, other.user.token)).status).toBe(403);
      expect((await invite({ client_account_id: 999_999_999 })).status).toBe(403);
    });

    it("the account's managers may invite: a bookkeeper of the firm serving the company (AA/BK staff of a provider)", async () => {
      const company = await app.seed.tenant();
      await app.seed.linkProvider(firm.account.id, company.account.id);
      const res = await invite({ client_account_id: company.account.id, role_id: 3 }, firm.user.token);
      expect(res.status, res.text).toBe(201);
      expect(res.body.invited_by_id).toBe(firm.user.id);
    });

    it('"existing pending invitations for the same target are cancelled automatically": same address and account only', async () => {
      const email = `samme-${uniq()}@example.no`;
      const first = await invited({ email });
      const elsewhere = await invited({ email, client_account_id: other.account.id }, other.user.token);
      const another = await invited();
      const second = await invited({ email: email.toUpperCase(), role_id: 3 });
      expect((await api('GET', `/invitations/${first.id}`)).body).toMatchObject({ status: 'CANCELLED', can_be_accepted: false, is_pending: false });
      expect((await api('GET', `/invitations/${second.id}`)).body).toMatchObject({ status: 'PENDING', role_id: 3 });
      expect((await api('GET', `/invitations/${elsewhere.id}`, undefined, other.user.token)).body.status).toBe('PENDING');
      expect((await api('GET', `/invitations/${another.id}`)).body.status).toBe('PENDING');
      expect((await pub('GET', `/invitations/${first.token}`)).body).toMatchObject({ status: 'CANCELLED', can_be_accepted: false });
    });

    it('an accepted invitation of the address is not touched by a new one', async () => {
      const email = `igjen-${uniq()}@example.no`;
      const first = await invited({ email });
      expect((await accept(first.token, newUser({ email: `annen-${uniq()}@example.no` }))).status).toBe(200);
      await invited({ email });
      expect((await api('GET', `/invitations/${first.id}`)).body.status).toBe('ACCEPTED');
    });
  });

  describe('GET /invitations', () => {
    let account: Tenant;
    const made: Record<string, { id: number }> = {};
    beforeAll(async () => {
      account = await app.seed.tenant();
      const make = (email: string) => invited({ email: `${email}-${uniq()}@example.no`, client_account_id: account.account.id }, account.user.token);
      made.pending = await make('venter');
      made.accepted = await make('godtatt');
      expect((await accept((made.accepted as { token: string } & typeof made.accepted).token)).status).toBe(200);
      made.cancelled = await make('avbrutt');
      expect((await api('DELETE', `/invitations/${made.cancelled.id}`, undefined, account.user.token)).status).toBe(200);
      made.lapsed = await make('utlopt');
      await expire(made.lapsed.id);
      made.stored = await make('lagret');
      await expire(made.stored.id);
      await app.db.prisma.invitation.update({ where: { id: made.stored.id }, data: { status: 'EXPIRED' } });
      made.newest = await make('nyest');
    });
    const list = (qs: string, token = account.user.token) => api('GET', `/invitations?${qs}`, undefined, token);

    it('{invitations, count, limit, offset}: newest first, limit 100 and offset 0 by default', async () => {
      const res = await list(`client_account_id=${account.account.id}`);
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['count', 'invitations', 'limit', 'offset']);
      expect(res.body).toMatchObject({ count: 6, limit: 100, offset: 0 });
      expect(res.body.invitations.map((i: { id: number }) => i.id)).toEqual(
        [made.newest, made.stored, made.lapsed, made.cancelled, made.accepted, made.pending].map((i) => i.id),
      );
      expect(res.body.invitations[0]).toMatchObject({ token: expect.stringMatching(/^[0-9a-f]{64}$/), role: { id: 5, name: 'EM' }, client_account: { id: account.account.id } });
      expect(res.body.invitations[0]).not.toHaveProperty('accepted_by');
    });

    it.each<[string, string[]]>([
      ['PENDING', ['newest', 'pending']],
      ['ACCEPTED', ['accepted']],
      ['EXPIRED', ['stored', 'lapsed']],
      ['CANCELLED', ['cancelled']],
      ['expired', ['stored', 'lapsed']],
    ])('status=%s (a pending invitation past expires_at is EXPIRED, stored or not)', async (status, names) => {
      const res = await list(`client_account_id=${account.account.id}&status=${status}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.invitations.map((i: { id: number }) => i.id)).toEqual(names.map((n) => made[n].id));
      expect(res.body.count).toBe(names.length);
      for (const i of res.body.invitations) expect(i.status).toBe(status.toUpperCase());
    });

    it('limit and offset page through them; limit above 1000 is served as 1000', async () => {
      const page = await list(`client_account_id=${account.account.id}&limit=2&offset=1`);
      expect(page.body).toMatchObject({ count: 6, limit: 2, offset: 1 });
      expect(page.body.invitations.map((i: { id: number }) => i.id)).toEqual([made.stored.id, made.lapsed.id]);
      expect((await list(`client_account_id=${account.account.id}&offset=6`)).body).toMatchObject({ invitations: [], count: 6, offset: 6 });
      expect((await list(`client_account_id=${account.account.id}&limit=5000`)).body.limit).toBe(1000);
    });

    it.each([
      ['limit=0', /^limit: must be an integer of at least 1$/],
      ['offset=-1', /^offset: must be an integer of at least 0$/],
      ['limit=x', /^limit: must be an integer/],
      ['status=OPEN', /^status/],
    ])('400 for %s', async (qs, message) => {
      const res = await list(`client_account_id=${account.account.id}&${qs}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(error(400, message));
    });

    it('without client_account_id: the invitations of every account the caller manages, nobody else\'s', async () => {
      const res = await list('limit=1000');
      expect(res.status).toBe(200);
      expect(new Set(res.body.invitations.map((i: { client_account_id: number }) => i.client_account_id))).toEqual(new Set([account.account.id]));
      expect(res.body.count).toBe(6);
    });

    it('403 for an account the caller does not manage: another company, or one where the caller is an employee', async () => {
      expect((await list(`client_account_id=${account.account.id}`, other.user.token)).status).toBe(403);
      const employee = await app.seed.user();
      await app.seed.grantRole({ userId: employee.id, clientAccountId: account.account.id, role: 'EM' });
      expect((await list(`client_account_id=${account.account.id}`, employee.token)).status).toBe(403);
      expect((await list('', employee.token)).body).toMatchObject({ invitations: [], count: 0 });
      expect((await app.http('GET', '/api/v2/invitations')).status).toBe(401);
    });
  });

  describe('GET /invitations/{id}', () => {
    it('"Detail including accepted_by": null until accepted, then the user who accepted', async () => {
      const inv = await invited({ role_id: 3 });
      const before = await api('GET', `/invitations/${inv.id}`);
      expect(before.status).toBe(200);
      expect(before.body).toEqual({ ...inv, accepted_by: null });
      const body = newUser();
      const accepted = await accept(inv.token, body);
      const after = await api('GET', `/invitations/${inv.id}`);
      expect(after.body).toMatchObject({
        status: 'ACCEPTED',
        accepted_by_id: accepted.body.user.id,
        accepted_at: accepted.body.invitation.accepted_at,
        is_pending: false,
        can_be_accepted: false,
        accepted_by: { id: accepted.body.user.id, first_name: 'Kari', last_name: 'Nordmann', email: body.email },
      });
    });

    it('404 for none; 403 for another account\'s and for an employee of the account', async () => {
      expect((await api('GET', '/invitations/999999999')).body).toEqual(error(404, /^Invitation 999999999 not found$/));
      const inv = await invited();
      expect((await api('GET', `/invitations/${inv.id}`, undefined, other.user.token)).status).toBe(403);
      const employee = await app.seed.user();
      await app.seed.grantRole({ userId: employee.id, clientAccountId: t.account.id, role: 'EM' });
      expect((await api('GET', `/invitations/${inv.id}`, undefined, employee.token)).status).toBe(403);
    });
  });

  describe('DELETE /invitations/{id}', () => {
    it('"Cancels a pending invitation; 200 with status CANCELLED"; the token can no longer be accepted', async () => {
      const inv = await invited();
      const res = await api('DELETE', `/invitations/${inv.id}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ ...inv, status: 'CANCELLED', is_pending: false, can_be_accepted: false, updated_at: expect.any(String) });
      expect((await accept(inv.token)).body).toEqual(error(400, /^This invitation has been cancelled$/));
    });

    it('cancelling it again answers it unchanged; an expired one can be cancelled too', async () => {
      const inv = await invited();
      await api('DELETE', `/invitations/${inv.id}`);
      expect((await api('DELETE', `/invitations/${inv.id}`)).body).toMatchObject({ id: inv.id, status: 'CANCELLED' });
      const old = await invited();
      await expire(old.id);
      expect((await api('GET', `/invitations/${old.id}`)).body.status).toBe('EXPIRED');
      expect((await api('DELETE', `/invitations/${old.id}`)).body).toMatchObject({ status: 'CANCELLED', is_expired: true });
    });

    it('"Not already accepted": an accepted invitation is 400 and stays accepted', async () => {
      const inv = await invited();
      await accept(inv.token);
      const res = await api('DELETE', `/invitations/${inv.id}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(error(400, /has already been accepted and cannot be cancelled/));
      expect((await api('GET', `/invitations/${inv.id}`)).body.status).toBe('ACCEPTED');
    });

    it('404 for none; 403 for another account\'s; 403 for a read-only token', async () => {
      expect((await api('DELETE', '/invitations/999999999')).status).toBe(404);
      const inv = await invited();
      expect((await api('DELETE', `/invitations/${inv.id}`, undefined, other.user.token)).status).toBe(403);
      expect((await api('DELETE', `/invitations/${inv.id}`, undefined, t.user.readToken)).status).toBe(403);
      expect((await api('GET', `/invitations/${inv.id}`)).body.status).toBe('PENDING');
    });
  });

  describe('GET /public/v2/invitations/{token} (no token)', () => {
    it('"Summary: id, invited_email, status, expires_at, is_expired, can_be_accepted, client_account, role" and nothing else', async () => {
      const inv = await invited({ role_id: 3 });
      const res = await pub('GET', `/invitations/${inv.token}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({
        id: inv.id,
        invited_email: inv.invited_email,
        status: 'PENDING',
        expires_at: inv.expires_at,
        is_expired: false,
        can_be_accepted: true,
        client_account: { id: t.account.id, display_name: t.account.displayName, unique_name: inv.client_account.unique_name },
        role: { id: 3, name: 'CA' },
      });
    });

    it('"PENDING | time | expires_at passed | is_expired true, cannot be accepted": shown EXPIRED at once, stored EXPIRED by the job', async () => {
      const inv = await invited();
      await expire(inv.id);
      expect((await pub('GET', `/invitations/${inv.token}`)).body).toMatchObject({ status: 'EXPIRED', is_expired: true, can_be_accepted: false });
      expect((await app.db.prisma.invitation.findUniqueOrThrow({ where: { id: inv.id } })).status).toBe('PENDING');
      expect(await expireInvitations(app.db.prisma)).toBeGreaterThanOrEqual(1);
      expect((await app.db.prisma.invitation.findUniqueOrThrow({ where: { id: inv.id } })).status).toBe('EXPIRED');
      expect((await pub('GET', `/invitations/${inv.token}`)).body).toMatchObject({ status: 'EXPIRED', is_expired: true, can_be_accepted: false });
    });

    it.each([
      ['an unknown token of the right form', 'a'.repeat(64)],
      ['a token of another form', 'not-a-token'],
      ['an upper-case copy of a token', 'A'.repeat(64)],
    ])('404 "invalid token": %s', async (_name, token) => {
      const res = await pub('GET', `/invitations/${token}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(error(404, /^Invitation not found$/));
    });

    it('a bearer token is not needed, and an invalid one is ignored', async () => {
      const inv = await invited();
      const res = await app.http('GET', `/public/v2/invitations/${inv.token}`, { token: 'not-a-valid-token' });
      expect(res.status).toBe(200);
    });
  });

  describe('POST /public/v2/invitations/{token}/accept (no token)', () => {
    it('200 {message, invitation, user, tokens}: the user exists with the role on the account at once, and the invitation is ACCEPTED', async () => {
      const inv = await invited({ role_id: 3 });
      const body = newUser({ email: inv.invited_email });
      const res = await accept(inv.token, body);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({
        message: expect.stringMatching(/^Invitation accepted/),
        invitation: {
          id: inv.id,
          status: 'ACCEPTED',
          accepted_at: expect.any(String),
          client_account: { id: t.account.id, display_name: t.account.displayName, unique_name: inv.client_account.unique_name },
          role: { id: 3, name: 'CA' },
        },
        user: { id: expect.any(Number), first_name: 'Kari', last_name: 'Nordmann', email: inv.invited_email, email_verified: true },
        tokens: { access_token: expect.any(String), refresh_token: expect.any(String), token_type: 'Bearer' },
      });
      const memberships = await app.db.prisma.membership.findMany({ where: { userId: res.body.user.id }, select: { clientAccountId: true, role: true } });
      expect(memberships).toEqual([{ clientAccountId: t.account.id, role: 'CA' }]);
      const login = await app.http('POST', '/v2/oauth/login', { body: { email: body.email, password: body.password } });
      expect(login.status).toBe(200);
      expect((await app.gql(login.body.access_token, '{ me { clientAccounts { id } } }')).data.me.clientAccounts).toEqual([{ id: t.account.id }]);
    });

    it('"email (may differ from the invited address)": the user gets that address, email_verified false', async () => {
      const inv = await invited();
      const res = await accept(inv.token, newUser({ email: 'Annen.Adresse-' + uniq() + '@Example.NO' }));
      expect(res.status).toBe(200);
      expect(res.body.user).toMatchObject({ email: expect.stringMatching(/^annen\.adresse-.*@example\.no$/), email_verified: false });
    });

    it.each<[string, Record<string, unknown>, RegExp]>([
      ['first_name missing', { first_name: undefined }, /^first_name: is required$/],
      ['last_name missing', { last_name: undefined }, /^last_name: is required$/],
      ['email missing', { email: undefined }, /^email: is required$/],
      ['password missing', { password: undefined }, /^password: is required$/],
      ['an empty first name', { first_name: ' ' }, /^first_name: must not be empty$/],
      ['a password of 7 characters', { password: 'kort123' }, /^password: must be at least 8 characters$/],
      ['an email that is no address', { email: 'kari' }, /^email: must be a valid email address$/],
    ])('400 "missing field" and bad values: %s; the invitation stays pending', async (_name, extra, message) => {
      const inv = await invited();
      const res = await accept(inv.token, newUser(extra));
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual(error(400, message));
      expect((await pub('GET', `/invitations/${inv.token}`)).body.can_be_accepted).toBe(true);
    });

    it('400 for no body at all', async () => {
      const inv = await invited();
      expect((await pub('POST', `/invitations/${inv.token}/accept`)).status).toBe(400);
    });

    it.each<[string, (inv: { id: number; token: string }) => Promise<unknown>, number, RegExp]>([
      ['"404 invalid token"', async () => undefined, 404, /^Invitation not found$/],
      ['"400 expired"', (inv) => expire(inv.id), 400, /^This invitation expired at .*: ask for a new one$/],
      ['"400 expired" (stored EXPIRED)', (inv) => app.db.prisma.invitation.update({ where: { id: inv.id }, data: { status: 'EXPIRED', expiresAt: new Date(Date.now() - 1) } }), 400, /^This invitation expired/],
      ['"400 already accepted"', (inv) => accept(inv.token), 400, /^This invitation has already been accepted$/],
      ['"400 cancelled"', (inv) => api('DELETE', `/invitations/${inv.id}`), 400, /^This invitation has been cancelled$/],
    ])('%s; no user is created', async (name, before, status, message) => {
      const inv = await invited();
      await before(inv);
      const body = newUser();
      const res = await accept(name.includes('404') ? 'f'.repeat(64) : inv.token, body);
      expect(res.status, res.text).toBe(status);
      expect(res.body).toEqual(error(status, message));
      expect(await app.db.prisma.user.findUnique({ where: { email: body.email } })).toBeNull();
    });

    it('"400 user already exists": the e-mail belongs to a user; the invitation stays pending', async () => {
      const inv = await invited();
      const res = await accept(inv.token, newUser({ email: other.user.email }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual(error(400, /^email: a user with the e-mail address .* already exists: sign in instead$/));
      expect((await pub('GET', `/invitations/${inv.token}`)).body.status).toBe('PENDING');
    });

    it('"400 role AA or BK on a non-provider account" also at acceptance, when the account stopped being a provider meanwhile', async () => {
      const office = await app.seed.tenant({ role: 'CA', industryCode: '69.202' });
      const inv = await invited({ client_account_id: office.account.id, role_id: 4 }, office.user.token);
      await app.db.prisma.clientAccount.update({ where: { id: office.account.id }, data: { industryCode: '62.010' } });
      const res = await accept(inv.token);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(error(400, /BK \(Bookkeeper\) can only be held on a provider account/));
    });

    it('two accepts of one token at once: one user, the other "already accepted"', async () => {
      const inv = await invited();
      const bodies = [newUser(), newUser()];
      const answers = await Promise.all(bodies.map((b) => accept(inv.token, b)));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
      expect(answers.find((a) => a.status === 400)!.body).toEqual(error(400, /already been accepted/));
      const users = await app.db.prisma.user.count({ where: { email: { in: bodies.map((b) => b.email) } } });
      expect(users).toBe(1);
    });

    it('405 for another method on the public paths; their errors are {error, status}', async () => {
      const inv = await invited();
      const res = await pub('DELETE', `/invitations/${inv.token}`);
      expect(res.status).toBe(405);
      expect(res.body).toEqual(error(405));
      expect((await pub('GET', `/invitations/${inv.token}/accept`)).status).toBe(405);
    });
  });

  it('the access token of an accepted invitation works on the API at once', async () => {
    const inv = await invited({ role_id: 3 });
    const { body } = await accept(inv.token);
    const res = await api('GET', `/invitations?client_account_id=${t.account.id}&limit=1`, undefined, body.tokens.access_token);
    expect(res.status, res.text).toBe(200);
    expect(res.body.count).toBeGreaterThan(1);
  });
});
