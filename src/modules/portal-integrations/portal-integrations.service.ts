import { createHash, randomBytes } from 'node:crypto';
import type { GovportalSystemUser, Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import type { PortalLoginService } from '../../generated/prisma/enums.ts';
import { UpstreamError } from '../../integrations/connector.ts';
import { searchDialogs as searchUpstreamDialogs, type Dialog } from '../../integrations/dialogplatform/dialogs.ts';
import {
  authorizedParties,
  DEFAULT_SYSTEM_ID,
  DIALOGS_SCOPE,
  exchangeLoginToken,
  getSystemUser as getPortalSystemUser,
  PROPERTY_SEARCH_SCOPE,
  reportees,
  requestSystemUser,
  SYSTEM_RIGHTS,
  systemUserToken,
  type PortalSystemUser,
} from '../../integrations/govportal/portal.ts';
import { authorizationUrl, DEFAULT_CLIENT_ID, endSessionUrl, exchangeCode, LOGIN_SCOPES, refreshLogin, userinfo } from '../../integrations/idprovider/login.ts';
import { integrationsOf, upstream, upstreamFailed } from '../../integrations/integrations.ts';
import { searchProperties } from '../../integrations/taxauthority/property.ts';
import { inTransaction, type RequestContext } from '../../shared/context.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../shared/errors.ts';
import { findPage, pageWindow } from '../../shared/pagination.ts';
import { canAccessAccount, isSystem, requireAccount } from '../../shared/tenancy.ts';
import { parse, type Args } from '../../shared/validation.ts';
import { managedAccountIds, requireManager, requireOrganizationNumber } from '../client-accounts/client-accounts.service.ts';
import {
  callbackPath,
  isUuid,
  LOGIN_STATE_TTL_MS,
  portalRules as rules,
  SYSTEM_USER_PAGE_LIMITS,
  TOKEN_MARGIN_MS,
  type LoginService,
} from './portal-integrations.rules.ts';

/**
 * The government portal, the national login, and what the portal's system users reach (spec 002
 * "Integrations": govportal, idprovider, taxauthority property search, dialogplatform dialogs).
 *
 * A portal or login connection is a person's: stored per user (portal_connections), made by the
 * browser flow authorize → login page → our callback. System users are per client account
 * (govportal_system_users), owned by the portal: their status is synced from it on every read.
 * Every upstream call comes before the write it leads to, so a failure leaves nothing half-written.
 * Tokens are secrets: no operation answers one, and none is logged.
 */

const DB_SERVICE: Record<LoginService, PortalLoginService> = { idprovider: 'IDPROVIDER', govportal: 'GOVPORTAL' };
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');

/** A login is a person's: the operations need a user behind the token. */
function personUser(ctx: RequestContext): number {
  if (!ctx.actor.userId) throw new ValidationError('A portal login belongs to a person: call this as a user');
  return ctx.actor.userId;
}

/**
 * The client account an integrator names with a person's login operation (status, authorize,
 * reportees, parties: client_account_id, optional). Integrators send it with every call, so it is
 * accepted; an account the caller cannot access is 403 (spec 000: "Access to any other client account
 * yields 403"). It changes nothing else: the login and the portal token are the person's (one per user
 * and service, whatever account the browser flow was started from) and the portal lets the person act
 * for every organisation the person may represent, so tying the connection to one account would
 * misstate what it can do, and a remembered account would be read by nothing.
 */
async function personAccount(ctx: RequestContext, clientAccountId: number | null | undefined): Promise<void> {
  if (clientAccountId != null) await requireAccount(ctx, clientAccountId);
}

const loginClientId = (ctx: RequestContext) => integrationsOf(ctx).connector('idprovider').clientId ?? DEFAULT_CLIENT_ID;

// ── Login connections: status, authorize, callback ──────────────────────────────────────────────

/**
 * GET …/{govportal|idprovider}/status: connected when the caller has an unexpired token or one the
 * login can refresh; end_session_url is the national login's logout URL (with the login's id_token
 * as hint), null when not connected.
 */
export async function connectionStatus(ctx: RequestContext, service: LoginService, args: Args<typeof rules.connection> = {}): Promise<{ connected: boolean; endSessionUrl: string | null }> {
  const parsed = parse(rules.connection, args);
  await personAccount(ctx, parsed.clientAccountId);
  if (!ctx.actor.userId) return { connected: false, endSessionUrl: null };
  const row = await ctx.db.portalConnection.findUnique({
    where: { userId_service: { userId: ctx.actor.userId, service: DB_SERVICE[service] } },
    select: { expiresAt: true, refreshToken: true, idToken: true },
  });
  const connected = !!row && (row.expiresAt.getTime() > Date.now() || !!row.refreshToken);
  if (!connected || !row.idToken) return { connected, endSessionUrl: null };
  return { connected, endSessionUrl: await endSessionUrl(integrationsOf(ctx).connector('idprovider'), row.idToken) };
}

/**
 * POST …/{govportal|idprovider}/authorize: the national login's page for the caller's browser, with
 * a fresh state (kept hashed, bound to the caller), PKCE and our callback as redirect_uri. return_to
 * (optional) is where the callback sends the browser afterwards: an address of this app or of an
 * origin in CORS_ORIGINS.
 */
export async function startLogin(ctx: RequestContext, service: LoginService, args: Args<typeof rules.authorize>): Promise<{ authorizationUrl: string }> {
  const { returnTo, clientAccountId } = parse(rules.authorize, args);
  const userId = personUser(ctx);
  await personAccount(ctx, clientAccountId);
  const integrations = integrationsOf(ctx);
  if (returnTo && !integrations.isAppOrigin(returnTo)) {
    throw ValidationError.field('returnTo', 'must be an address of this service or of an origin in CORS_ORIGINS');
  }
  const state = randomToken();
  const codeVerifier = randomToken(48);
  const nonce = randomToken(16);
  const url = await authorizationUrl(integrations.connector('idprovider'), {
    clientId: loginClientId(ctx),
    redirectUri: integrations.appUrl(callbackPath(service)),
    scope: LOGIN_SCOPES[service],
    state,
    nonce,
    codeChallenge: createHash('sha256').update(codeVerifier).digest('base64url'),
  });
  await inTransaction(ctx, async (tx) => {
    await tx.db.portalLoginState.deleteMany({ where: { userId, expiresAt: { lt: new Date() } } });
    await tx.db.portalLoginState.create({
      data: { stateHash: sha256(state), userId, service: DB_SERVICE[service], codeVerifier, nonce, returnTo: returnTo ?? null, expiresAt: new Date(Date.now() + LOGIN_STATE_TTL_MS) },
      select: { id: true },
    });
  });
  return { authorizationUrl: url };
}

/** Why a callback could not connect: its status and a sentence for the person's browser. */
export class LoginCallbackError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The callback of the login (the browser comes back with code and state): the state names the user
 * and the login started; the code is exchanged (with the PKCE verifier) for the person's tokens, the
 * person read from userinfo, and for the portal the login token exchanged for a portal token. Only
 * then is the connection stored. Answers where to send the browser (return_to), if anywhere.
 */
export async function finishLogin(ctx: RequestContext, service: LoginService, q: { state?: string; code?: string; error?: string; errorDescription?: string }): Promise<{ returnTo: string | null }> {
  if (!q.state) throw new LoginCallbackError(400, 'The login answered without a state: start again from the application.');
  const stateHash = sha256(q.state);
  const login = await ctx.db.portalLoginState.findUnique({ where: { stateHash } });
  // one use: a replayed or concurrent callback finds nothing
  const { count } = await ctx.db.portalLoginState.deleteMany({ where: { stateHash } });
  if (!login || !count || login.service !== DB_SERVICE[service] || login.expiresAt.getTime() < Date.now()) {
    throw new LoginCallbackError(400, 'This login is unknown, already finished or expired: start again from the application.');
  }
  if (q.error) throw new LoginCallbackError(400, `The login was not completed (${q.error}${q.errorDescription ? `: ${q.errorDescription}` : ''}). Start again from the application.`);
  if (!q.code) throw new LoginCallbackError(400, 'The login answered without a code: start again from the application.');
  const integrations = integrationsOf(ctx);
  const idp = integrations.connector('idprovider');
  let connection: { personId: string; accessToken: string; expiresAt: Date; refreshToken: string | null; idToken: string | null };
  try {
    const tokens = await exchangeCode(idp, { clientId: loginClientId(ctx), code: q.code, codeVerifier: login.codeVerifier, redirectUri: integrations.appUrl(callbackPath(service)) });
    const person = await userinfo(idp, tokens.access_token);
    const portal = service === 'govportal' ? await exchangeLoginToken(integrations.connector('govportal'), tokens.access_token) : null;
    connection = {
      personId: person.pid,
      accessToken: portal?.access_token ?? tokens.access_token,
      expiresAt: new Date(Date.now() + (portal?.expires_in ?? tokens.expires_in) * 1000),
      refreshToken: tokens.refresh_token ?? null,
      idToken: tokens.id_token ?? null,
    };
  } catch (e) {
    if (e instanceof UpstreamError) {
      ctx.logger.warn({ service: e.service, failure: e.failure, status: e.status }, 'login callback: upstream failed');
      throw new LoginCallbackError(502, `${e.failure === 'status' && e.status && e.status < 500 ? 'The login was refused' : 'The login could not be completed'}: ${e.message}. Start again from the application.`);
    }
    throw e;
  }
  await ctx.db.portalConnection.upsert({
    where: { userId_service: { userId: login.userId, service: login.service } },
    create: { userId: login.userId, service: login.service, ...connection },
    update: connection,
    select: { id: true },
  });
  return { returnTo: login.returnTo };
}

// ── The portal token: reportees and parties ────────────────────────────────────────────────────

const NO_PORTAL_TOKEN = 'No valid portal access token: connect the government portal first (POST /integrations/govportal/authorize)';

/**
 * The caller's portal token, refreshed through the national login when it has expired (the new
 * tokens are stored after both calls answered). 403 without a connection, or one that has expired
 * and cannot be refreshed; `failure` is the status of an upstream that fails otherwise.
 */
async function portalToken(ctx: RequestContext, failure: number): Promise<{ connectionId: number; token: string }> {
  const userId = personUser(ctx);
  const row = await ctx.db.portalConnection.findUnique({ where: { userId_service: { userId, service: 'GOVPORTAL' } } });
  if (!row) throw new ForbiddenError(NO_PORTAL_TOKEN);
  if (row.expiresAt.getTime() > Date.now() + TOKEN_MARGIN_MS) return { connectionId: row.id, token: row.accessToken };
  if (!row.refreshToken) throw new ForbiddenError(`${NO_PORTAL_TOKEN}: the portal token has expired`);
  const integrations = integrationsOf(ctx);
  let refreshed: { accessToken: string; expiresAt: Date; refreshToken: string | null; idToken: string | null };
  try {
    const login = await refreshLogin(integrations.connector('idprovider'), { clientId: loginClientId(ctx), refreshToken: row.refreshToken });
    const portal = await exchangeLoginToken(integrations.connector('govportal'), login.access_token);
    refreshed = {
      accessToken: portal.access_token,
      expiresAt: new Date(Date.now() + portal.expires_in * 1000),
      refreshToken: login.refresh_token ?? null,
      idToken: login.id_token ?? row.idToken,
    };
  } catch (e) {
    // the login no longer knows the refresh token (logged out, revoked): no valid token, and none to keep
    if (e instanceof UpstreamError && e.failure === 'status' && (e.status === 400 || e.status === 401)) {
      await ctx.db.portalConnection.deleteMany({ where: { id: row.id } });
      throw new ForbiddenError(`${NO_PORTAL_TOKEN}: the portal token has expired and the login could not renew it`);
    }
    throw upstreamFailed(e, { status: failure, what: 'Renewing the portal token' });
  }
  await ctx.db.portalConnection.update({ where: { id: row.id }, data: refreshed, select: { id: true } });
  return { connectionId: row.id, token: refreshed.accessToken };
}

/** A call with the caller's portal token: the portal refusing the token (401) forgets the connection and is a 403. */
async function withPortalToken<T>(ctx: RequestContext, what: string, failure: number, call: (token: string) => Promise<T>): Promise<T> {
  const { connectionId, token } = await portalToken(ctx, failure);
  try {
    return await call(token);
  } catch (e) {
    if (e instanceof UpstreamError && e.failure === 'status' && e.status === 401) {
      await ctx.db.portalConnection.deleteMany({ where: { id: connectionId } });
      throw new ForbiddenError(`${NO_PORTAL_TOKEN}: the portal refused the token`);
    }
    throw upstreamFailed(e, { status: failure, what });
  }
}

/** GET …/govportal/reportees: the portal's HAL+JSON as it answered. 403 without a valid portal token. */
export async function govportalReportees(ctx: RequestContext, args: Args<typeof rules.connection> = {}): Promise<unknown> {
  const parsed = parse(rules.connection, args);
  await personAccount(ctx, parsed.clientAccountId);
  return withPortalToken(ctx, 'Listing reportees', 500, (token) => reportees(integrationsOf(ctx).connector('govportal'), token));
}

/** GET …/govportal/parties: the portal's authorized parties as it answered. 403; 500 when the portal fails. */
export async function govportalParties(ctx: RequestContext, args: Args<typeof rules.connection> = {}): Promise<unknown> {
  const parsed = parse(rules.connection, args);
  await personAccount(ctx, parsed.clientAccountId);
  return withPortalToken(ctx, 'Listing authorized parties', 500, (token) => authorizedParties(integrationsOf(ctx).connector('govportal'), token));
}

// ── System users ────────────────────────────────────────────────────────────────────────────────

type SystemUserQuery = { include?: PrismaNS.GovportalSystemUserInclude; select?: PrismaNS.GovportalSystemUserSelect };

const systemId = (ctx: RequestContext) => integrationsOf(ctx).connector('govportal').clientId ?? DEFAULT_SYSTEM_ID;

/** rights compared by content (jsonb keeps an object's keys in an order of its own) */
const rightsKey = (rights: unknown) =>
  Array.isArray(rights) ? rights.map((r) => `${String((r as { resource?: unknown })?.resource)}\u0000${String((r as { scope?: unknown })?.scope)}`).join('\n') : '';

/** what a portal answer changes in our row (nothing when it says what we have) */
function syncedFields(row: GovportalSystemUser, portal: PortalSystemUser): PrismaNS.GovportalSystemUserUpdateInput | null {
  const data: PrismaNS.GovportalSystemUserUpdateInput = {};
  if (portal.status !== row.status) data.status = portal.status;
  if ((portal.confirm_url ?? null) !== row.confirmUrl) data.confirmUrl = portal.confirm_url ?? null;
  if (rightsKey(portal.rights) !== rightsKey(row.rights)) data.rights = portal.rights;
  return Object.keys(data).length ? data : null;
}

/** Reads the rows' status from the portal (one call each, all before any write) and stores what changed. */
async function syncSystemUsers(ctx: RequestContext, rows: GovportalSystemUser[], options: { missing: 'fail' | 'keep' }): Promise<void> {
  if (!rows.length) return;
  const gp = integrationsOf(ctx).connector('govportal');
  const answers = await upstream(() => Promise.all(rows.map((r) => getPortalSystemUser(gp, r.id))), { status: 400, forbidden: 400, what: 'Syncing the system user status' });
  const updates: [string, PrismaNS.GovportalSystemUserUpdateInput][] = [];
  rows.forEach((row, i) => {
    const portal = answers[i];
    if (!portal) {
      if (options.missing === 'fail') throw new ValidationError(`Syncing the system user status failed: the portal no longer knows system user ${row.id}`);
      return;
    }
    const data = syncedFields(row, portal);
    if (data) updates.push([row.id, data]);
  });
  if (updates.length) {
    await inTransaction(ctx, async (tx) => {
      for (const [id, data] of updates) await tx.db.govportalSystemUser.update({ where: { id }, data, select: { id: true } });
    });
  }
}

/**
 * POST …/govportal/system-users: asks the portal for a system user of the client account's
 * organisation with the rights our system needs (property search, dialogs). 404 unknown account; 403
 * unless the caller manages it; 400 when it has no organization number, or the portal's request
 * failed (then nothing is stored). Answers the stored system user, status New with its confirm_url.
 */
export async function createSystemUser(ctx: RequestContext, args: Args<typeof rules.createSystemUser>, query: SystemUserQuery = {}) {
  const { clientAccountId, redirectUrl } = parse(rules.createSystemUser, args);
  const account = await ctx.db.clientAccount.findUnique({ where: { id: clientAccountId }, select: { id: true } });
  if (!account) throw new NotFoundError(`Client account ${clientAccountId}`);
  await requireManager(ctx, clientAccountId);
  const orgNumber = await requireOrganizationNumber(ctx, clientAccountId, 'a system user (it acts for the organization)');
  const portal = await upstream(
    () =>
      requestSystemUser(integrationsOf(ctx).connector('govportal'), {
        externalRef: `ca-${clientAccountId}-${randomBytes(6).toString('hex')}`,
        systemId: systemId(ctx),
        orgNumber,
        rights: SYSTEM_RIGHTS,
        redirectUrl,
      }),
    { status: 400, forbidden: 400, what: 'The system user request' },
  );
  return ctx.db.govportalSystemUser.create({
    ...query,
    data: {
      id: portal.id,
      externalRef: portal.external_ref,
      systemId: portal.system_id,
      orgNumber: portal.org_number,
      clientAccountId,
      status: portal.status,
      confirmUrl: portal.confirm_url ?? null,
      redirectUrl: portal.redirect_url ?? null,
      rights: portal.rights,
    },
  });
}

/**
 * GET …/govportal/system-users/{id}: the system user with its status synced from the portal. 404 for
 * an unknown id or one of an account the caller cannot access; 403 when the caller may see the
 * account but not manage it; 400 when the portal fails.
 */
export async function getSystemUser(ctx: RequestContext, args: Args<typeof rules.getSystemUser>, query: SystemUserQuery = {}) {
  const { id } = parse(rules.getSystemUser, args);
  const row = isUuid(id) ? await ctx.db.govportalSystemUser.findUnique({ where: { id: id.toLowerCase() } }) : null;
  if (!row || !(await canAccessAccount(ctx, row.clientAccountId))) throw new NotFoundError(isUuid(id) ? `System user ${id}` : 'System user (the id is no UUID)');
  await requireManager(ctx, row.clientAccountId);
  await syncSystemUsers(ctx, [row], { missing: 'fail' });
  return ctx.db.govportalSystemUser.findUniqueOrThrow({ ...query, where: { id: row.id } });
}

/**
 * GET …/govportal/system-users: the system users of the accounts the caller manages, newest first,
 * `{items, page, per_page, total}`; with client_account_id only that account's, each synced from the
 * portal first (403 unless the caller manages it).
 */
export async function listSystemUsers(ctx: RequestContext, args: Args<typeof rules.listSystemUsers>, query: SystemUserQuery = {}) {
  const { clientAccountId, ...paging } = parse(rules.listSystemUsers, args);
  const window = pageWindow(paging, SYSTEM_USER_PAGE_LIMITS);
  let where: PrismaNS.GovportalSystemUserWhereInput;
  if (clientAccountId) {
    await requireManager(ctx, clientAccountId);
    where = { clientAccountId };
    await syncSystemUsers(ctx, await ctx.db.govportalSystemUser.findMany({ where }), { missing: 'keep' });
  } else {
    const managed = await managedAccountIds(ctx);
    where = managed ? { clientAccountId: { in: [...managed] } } : {};
  }
  return findPage(
    window,
    (w) => ctx.db.govportalSystemUser.findMany({ ...query, where, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], ...w }),
    () => ctx.db.govportalSystemUser.count({ where }),
  );
}

// ── What an active system user reaches: property search, dialogs ──────────────────────────────

const hasScope = (row: GovportalSystemUser, scope: string) => Array.isArray(row.rights) && row.rights.some((r) => (r as { scope?: unknown })?.scope === scope);

/**
 * The client account's Active system user with a right of the scope: an Active one as stored, else
 * one waiting (New, Pending) that the portal now reports Active. 403 when there is none.
 */
async function activeSystemUser(ctx: RequestContext, clientAccountId: number, scope: string, what: string): Promise<GovportalSystemUser> {
  const rows = (await ctx.db.govportalSystemUser.findMany({ where: { clientAccountId }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }] })).filter((r) => hasScope(r, scope));
  let active = rows.find((r) => r.status === 'Active');
  if (!active) {
    const waiting = rows.filter((r) => r.status === 'New' || r.status === 'Pending');
    if (waiting.length) {
      await syncSystemUsers(ctx, waiting, { missing: 'keep' });
      active = (await ctx.db.govportalSystemUser.findMany({ where: { id: { in: waiting.map((r) => r.id) }, status: 'Active' }, orderBy: { createdAt: 'desc' }, take: 1 }))[0];
    }
  }
  if (!active) {
    throw new ForbiddenError(
      `Client account ${clientAccountId} has no active system user with the right ${scope} (${what}): create one with POST /integrations/govportal/system-users and have the organization approve it`,
    );
  }
  return active;
}

/** A token of the system user for the scope (the portal refuses one that is not Active or lacks the right: 403). */
function systemToken(ctx: RequestContext, systemUser: GovportalSystemUser, scope: string): Promise<string> {
  return upstream(() => systemUserToken(integrationsOf(ctx).connector('govportal'), { systemUserId: systemUser.id, scope }), { status: 400, what: 'Getting a system user token' }).then(
    (t) => t.access_token,
  );
}

/**
 * A token of the client account's Active system user for the scope, for another module calling an
 * upstream as the organisation (a tax-return import with auth maskinporten): 403 without such a
 * system user, or when the portal refuses the token. `optional`: undefined instead of the 403 when
 * the account has none (auth auto falls back to the service's own credentials).
 */
export async function systemUserTokenFor(ctx: RequestContext, clientAccountId: number, scope: string, what: string, options: { optional?: boolean } = {}): Promise<string | undefined> {
  let systemUser: GovportalSystemUser;
  try {
    systemUser = await activeSystemUser(ctx, clientAccountId, scope, what);
  } catch (e) {
    if (options.optional && e instanceof ForbiddenError) return undefined;
    throw e;
  }
  return systemToken(ctx, systemUser, scope);
}

async function requireReadable(ctx: RequestContext, clientAccountId: number): Promise<void> {
  if (isSystem(ctx)) return;
  if (!(await canAccessAccount(ctx, clientAccountId))) throw new ForbiddenError(`You do not have access to client account ${clientAccountId}`);
}

/**
 * GET …/taxauthority/eiendom/soek/{inntektsaar}: the tax authority's property search for the year,
 * as the client account's system user (needs an Active one with the right taxauthority:eiendom:
 * 403). The upstream result is answered unchanged; its failure is a 400.
 */
export async function propertySearch(ctx: RequestContext, args: Args<typeof rules.propertySearch>): Promise<unknown> {
  const { inntektsaar, clientAccountId, query } = parse(rules.propertySearch, args);
  await requireReadable(ctx, clientAccountId);
  const systemUser = await activeSystemUser(ctx, clientAccountId, PROPERTY_SEARCH_SCOPE, 'property search');
  const token = await systemToken(ctx, systemUser, PROPERTY_SEARCH_SCOPE);
  return upstream(() => searchProperties(integrationsOf(ctx).connector('taxauthority'), { inntektsaar, query, token }), { status: 400, what: 'The property search' });
}

/**
 * GET …/dialogplatform/dialogs: the dialogs of the client account's organisation at the dialog
 * platform, live, as its system user (needs an Active one with the right dialogplatform:dialogs.read:
 * 403); status and service_resource are passed on as filters. An upstream failure is a 400.
 */
export async function searchDialogs(ctx: RequestContext, args: Args<typeof rules.dialogs>): Promise<{ items: Dialog[] }> {
  const { clientAccountId, status, serviceResource } = parse(rules.dialogs, args);
  await requireReadable(ctx, clientAccountId);
  const systemUser = await activeSystemUser(ctx, clientAccountId, DIALOGS_SCOPE, 'dialog search');
  const token = await systemToken(ctx, systemUser, DIALOGS_SCOPE);
  const items = await upstream(
    () => searchUpstreamDialogs(integrationsOf(ctx).connector('dialogplatform'), { orgNumber: systemUser.orgNumber, status, serviceResource, token }),
    { status: 400, what: 'The dialog search' },
  );
  return { items };
}
