import { z } from 'zod';
import type { Connector } from '../connector.ts';

/**
 * The national login (spec 002 `idprovider`), an OpenID Connect provider: the authorization code
 * flow with PKCE. Our client id is IDPROVIDER_CLIENT_ID (default `accounting-api`); the token call
 * sends IDPROVIDER_CLIENT_ID/_SECRET as HTTP Basic (client_secret_basic) when they are configured.
 *
 *   GET  /authorize   the login page a browser is sent to (client_id, redirect_uri, response_type=code,
 *                     scope, state, nonce, code_challenge, code_challenge_method=S256)
 *   POST /token       grant_type authorization_code (code, code_verifier, redirect_uri) or refresh_token
 *   GET  /userinfo    the person of an access token
 *   GET  /logout      end-session: id_token_hint, post_logout_redirect_uri
 */
export const DEFAULT_CLIENT_ID = 'accounting-api';

/** what we ask the login for: the person, and (for the portal) the portal's scope */
export const LOGIN_SCOPES = { idprovider: 'openid profile', govportal: 'openid profile govportal:portal' } as const;

export const tokenSchema = z.object({
  access_token: z.string().min(1),
  id_token: z.string().min(1).nullish(),
  refresh_token: z.string().min(1).nullish(),
  token_type: z.string().nullish(),
  expires_in: z.number().int().positive(),
  scope: z.string().nullish(),
});
export type LoginTokens = z.infer<typeof tokenSchema>;

export const userinfoSchema = z.object({
  sub: z.string().min(1),
  pid: z.string().regex(/^\d{11}$/),
  name: z.string().nullish(),
});

export interface AuthorizeRequest {
  clientId: string;
  redirectUri: string;
  scope: string;
  state: string;
  nonce: string;
  codeChallenge: string;
}

/** The login page URL for a browser. */
export function authorizationUrl(c: Connector, r: AuthorizeRequest): Promise<string> {
  return c.publicUrl('/authorize', {
    client_id: r.clientId,
    redirect_uri: r.redirectUri,
    response_type: 'code',
    scope: r.scope,
    state: r.state,
    nonce: r.nonce,
    code_challenge: r.codeChallenge,
    code_challenge_method: 'S256',
  });
}

export function exchangeCode(c: Connector, r: { clientId: string; code: string; codeVerifier: string; redirectUri: string }): Promise<LoginTokens> {
  return c.call(tokenSchema, 'POST', '/token', {
    body: { grant_type: 'authorization_code', client_id: r.clientId, code: r.code, code_verifier: r.codeVerifier, redirect_uri: r.redirectUri },
  });
}

export function refreshLogin(c: Connector, r: { clientId: string; refreshToken: string }): Promise<LoginTokens> {
  return c.call(tokenSchema, 'POST', '/token', { body: { grant_type: 'refresh_token', client_id: r.clientId, refresh_token: r.refreshToken } });
}

export function userinfo(c: Connector, accessToken: string): Promise<z.infer<typeof userinfoSchema>> {
  return c.call(userinfoSchema, 'GET', '/userinfo', { token: accessToken });
}

/** The end-session (logout) URL for a browser, with the login's id_token as hint. */
export function endSessionUrl(c: Connector, idToken: string): Promise<string> {
  return c.publicUrl('/logout', { id_token_hint: idToken });
}
