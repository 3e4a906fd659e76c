import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { isValidNationalIdNumber } from '../../shared/norwegian-ids.ts';
import { escapeHtml, sandboxPage } from '../sandbox/html.ts';
import { defineSandbox, sandboxError } from '../sandbox/define.ts';

/**
 * The national login, simulated (see ./login.ts for the API). The login page offers a few test
 * persons (deterministic, valid national identity numbers) or takes any valid 11-digit number; the
 * person chosen is who the code, the tokens and userinfo speak for. Access tokens live an hour,
 * refresh tokens until the person logs out (GET /logout revokes every token of the login).
 */
const ACCESS_TTL_S = 3600;
const CODE_TTL_MS = 5 * 60_000;

/** the test persons of the login page */
export const TEST_PERSONS: readonly { pid: string; name: string }[] = [
  { pid: validPid('150385', 123), name: 'Kari Nordmann' },
  { pid: validPid('010190', 456), name: 'Ola Nordmann' },
  { pid: validPid('241272', 789), name: 'Per Revisor' },
];

/** a valid fødselsnummer born on ddmmyy, the first individual number from `from` that takes check digits */
function validPid(ddmmyy: string, from: number): string {
  for (let n = from; ; n++) {
    const base = `${ddmmyy}${String(n % 1000).padStart(3, '0')}`;
    for (let k = 0; k < 100; k++) {
      const pid = `${base}${String(k).padStart(2, '0')}`;
      if (isValidNationalIdNumber(pid)) return pid;
    }
  }
}

export const personName = (pid: string): string => TEST_PERSONS.find((p) => p.pid === pid)?.name ?? `Testperson ${pid.slice(-5)}`;

interface Code {
  pid: string;
  clientId: string;
  redirectUri: string;
  challenge: string;
  nonce: string;
  scope: string;
  sid: string;
  expiresAt: number;
}
interface Grant {
  pid: string;
  scope: string;
  clientId: string;
  sid: string;
}

const codes = new Map<string, Code>();
const accessTokens = new Map<string, Grant & { expiresAt: number }>();
const refreshTokens = new Map<string, Grant>();
const idTokens = new Map<string, string>(); // id_token → sid
const SECRET = randomBytes(32);

const random = () => randomBytes(24).toString('base64url');
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** The person a live login access token speaks for (the portal's token exchange asks this). */
export function loginTokenPerson(token: string): { pid: string; scope: string } | undefined {
  const grant = accessTokens.get(token);
  if (!grant || grant.expiresAt < Date.now()) return undefined;
  return { pid: grant.pid, scope: grant.scope };
}

function issue(grant: Grant, nonce: string | undefined, issuer: string) {
  const access = random();
  const refresh = random();
  accessTokens.set(access, { ...grant, expiresAt: Date.now() + ACCESS_TTL_S * 1000 });
  refreshTokens.set(refresh, grant);
  const now = Math.floor(Date.now() / 1000);
  const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ iss: issuer, sub: grant.pid, pid: grant.pid, aud: grant.clientId, sid: grant.sid, nonce, iat: now, exp: now + ACCESS_TTL_S })}`;
  const idToken = `${unsigned}.${createHmac('sha256', SECRET).update(unsigned).digest('base64url')}`;
  idTokens.set(idToken, grant.sid);
  return { access_token: access, id_token: idToken, refresh_token: refresh, token_type: 'Bearer', expires_in: ACCESS_TTL_S, scope: grant.scope };
}

function field(req: Request, name: string): string {
  const v = (req.method === 'GET' ? req.query[name] : (req.body as Record<string, unknown> | undefined)?.[name]) ?? req.query[name];
  return typeof v === 'string' ? v : '';
}

const PARAMS = ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'nonce', 'code_challenge', 'code_challenge_method'] as const;

/** the authorize parameters, or the reason they are unusable */
function authorizeParams(req: Request): Record<(typeof PARAMS)[number], string> | string {
  const p = Object.fromEntries(PARAMS.map((n) => [n, field(req, n)])) as Record<(typeof PARAMS)[number], string>;
  if (!p.client_id) return 'client_id is required';
  if (!/^https?:\/\//.test(p.redirect_uri)) return 'redirect_uri must be an http(s) URL';
  if (p.response_type !== 'code') return 'response_type must be code';
  if (!p.state) return 'state is required';
  if (!p.code_challenge || p.code_challenge_method !== 'S256') return 'PKCE is required: code_challenge with code_challenge_method S256';
  return p;
}

function loginPage(res: Response, action: string, p: Record<string, string>, error?: string, status = 200) {
  const hidden = PARAMS.map((n) => `<input type="hidden" name="${n}" value="${escapeHtml(p[n] ?? '')}">`).join('\n');
  const persons = TEST_PERSONS.map(
    (person, i) => `<label><input type="radio" name="pid" value="${person.pid}"${i === 0 ? ' checked' : ''}> ${escapeHtml(person.name)} (${person.pid})</label>`,
  ).join('\n');
  res
    .status(status)
    .type('html')
    .send(
      sandboxPage(
        'Logg inn',
        `${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${escapeHtml(action)}">
${hidden}
<fieldset><legend>Velg en testperson</legend>
${persons}
<label>eller fødselsnummer (11 siffer): <input name="pid_other" inputmode="numeric" pattern="\\d{11}"></label>
</fieldset>
<button type="submit" name="action" value="login">Logg inn</button>
<button type="submit" name="action" value="cancel">Avbryt</button>
</form>`,
      ),
    );
}

function withQuery(url: string, query: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
  return u.toString();
}

function tokenError(res: Response, description: string, status = 400) {
  res.status(status).json({ error: status === 401 ? 'invalid_client' : 'invalid_grant', error_description: description });
}

defineSandbox('idprovider', (router, env) => {
  router.get('/authorize', (req, res) => {
    const p = authorizeParams(req);
    if (typeof p === 'string') return void res.status(400).type('html').send(sandboxPage('Ugyldig innloggingsforespørsel', `<p class="error">${escapeHtml(p)}</p>`));
    loginPage(res, `${env.publicBase(req)}/authorize`, p);
  });

  router.post('/authorize', (req, res) => {
    const p = authorizeParams(req);
    if (typeof p === 'string') return void res.status(400).type('html').send(sandboxPage('Ugyldig innloggingsforespørsel', `<p class="error">${escapeHtml(p)}</p>`));
    if (field(req, 'action') === 'cancel') return res.redirect(303, withQuery(p.redirect_uri, { error: 'access_denied', error_description: 'The person cancelled the login', state: p.state }));
    const pid = (field(req, 'pid_other') || field(req, 'pid')).replace(/\s/g, '');
    if (!isValidNationalIdNumber(pid)) return loginPage(res, `${env.publicBase(req)}/authorize`, p, 'Ugyldig fødselsnummer: 11 siffer med gyldige kontrollsiffer', 400);
    const code = random();
    codes.set(code, {
      pid,
      clientId: p.client_id,
      redirectUri: p.redirect_uri,
      challenge: p.code_challenge,
      nonce: p.nonce,
      scope: p.scope || 'openid',
      sid: random(),
      expiresAt: Date.now() + CODE_TTL_MS,
    });
    res.redirect(303, withQuery(p.redirect_uri, { code, state: p.state }));
  });

  router.post('/token', (req, res) => {
    const grantType = field(req, 'grant_type');
    if (grantType === 'authorization_code') {
      const code = codes.get(field(req, 'code'));
      codes.delete(field(req, 'code')); // single use, also when the rest is wrong
      if (!code || code.expiresAt < Date.now()) return tokenError(res, 'The code is unknown, used or expired');
      if (field(req, 'redirect_uri') !== code.redirectUri) return tokenError(res, 'redirect_uri differs from the authorize request');
      const verifier = field(req, 'code_verifier');
      if (createHash('sha256').update(verifier).digest('base64url') !== code.challenge) return tokenError(res, 'code_verifier does not match the code_challenge');
      return res.json(issue({ pid: code.pid, scope: code.scope, clientId: code.clientId, sid: code.sid }, code.nonce || undefined, env.publicBase(req)));
    }
    if (grantType === 'refresh_token') {
      const token = field(req, 'refresh_token');
      const grant = refreshTokens.get(token);
      if (!grant) return tokenError(res, 'The refresh token is unknown or revoked');
      refreshTokens.delete(token); // rotated
      return res.json(issue(grant, undefined, env.publicBase(req)));
    }
    tokenError(res, 'grant_type must be authorization_code or refresh_token');
  });

  router.get('/userinfo', (req, res) => {
    const token = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '';
    const grant = accessTokens.get(token);
    if (!grant || grant.expiresAt < Date.now()) return sandboxError(res, 401, 'invalid_token');
    res.json({ sub: grant.pid, pid: grant.pid, name: personName(grant.pid) });
  });

  /** end-session: every token of the login of id_token_hint is revoked */
  router.get('/logout', (req, res) => {
    const sid = idTokens.get(field(req, 'id_token_hint'));
    if (sid) {
      for (const [t, g] of accessTokens) if (g.sid === sid) accessTokens.delete(t);
      for (const [t, g] of refreshTokens) if (g.sid === sid) refreshTokens.delete(t);
      idTokens.delete(field(req, 'id_token_hint'));
    }
    const back = field(req, 'post_logout_redirect_uri');
    if (/^https?:\/\//.test(back)) return res.redirect(303, back);
    res.type('html').send(sandboxPage('Logget ut', '<p>Du er logget ut. Du kan lukke dette vinduet.</p>'));
  });
});
