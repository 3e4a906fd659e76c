/**
 * The token endpoint errors of spec 000 ("Token endpoint errors"), produced from oidc-provider's own
 * errors. The library keeps the detail in `error_detail` (invalid_grant) or `error_description`
 * (invalid_request); those strings are internal to oidc-provider 9.13, so the version is pinned and
 * test/oauth/token-errors.test.ts has one row per spec row.
 */
export interface WireError {
  status: number;
  error: string;
  description?: string;
}

type LibraryError = Error & { error?: string; error_description?: string; error_detail?: string; statusCode?: number };

const grantError = (description: string): WireError => ({ status: 400, error: 'invalid_grant', description });

const CODE_DETAILS: [RegExp, string][] = [
  [/^authorization code is expired$/, 'Authorization code expired'],
  [/^authorization code (not found|already consumed)$|^grant (not found|is expired)$|invalid \(referenced account not found\)|^accountId mismatch$/, 'Invalid authorization code'],
  [/^client mismatch$/, 'Authorization code was issued to another client'],
  [/^authorization code redirect_uri mismatch$/, 'Redirect URI mismatch'],
  [/^code_verifier must be provided$/, 'Code verifier is required'],
  [/^code_verifier does not match code_challenge$|^unsupported code_challenge_method$/, 'Code verifier is invalid'],
];

const REFRESH_DETAILS: [RegExp, string][] = [
  [/^refresh token (not found|is expired|already used)$|^grant (not found|is expired)$|invalid \(referenced account not found\)|^accountId mismatch$/, 'Invalid refresh token'],
  [/^client mismatch$/, 'Refresh token was issued to another client'],
];

/** The spec's answer for a library error at the token endpoint, or undefined to keep the library's. */
export function mapTokenError(grantType: string | undefined, err: LibraryError): WireError | undefined {
  const description = err.error_description ?? '';
  const detail = err.error_detail ?? '';
  const shared = mapClientError(err);
  if (shared) return shared;
  if (err.error === 'invalid_request' && description === 'requested grant type is not allowed for this client') {
    return { status: 400, error: 'unauthorized_client', description: `The client is not registered for the ${grantType} grant` };
  }
  if (err.error === 'unsupported_grant_type') {
    return { status: 400, error: 'unsupported_grant_type', description: 'grant_type must be authorization_code, refresh_token or client_credentials' };
  }
  if (err.error === 'invalid_target' && grantType === 'client_credentials') {
    // spec 000 lists no invalid_target among its OAuth error codes
    return { status: 400, error: 'invalid_request', description: 'Unknown resource: use the base URL, /api/v2, /graphql or /mcp of this server' };
  }
  if (err.error === 'invalid_target' && grantType === 'refresh_token') return grantError('Resource parameter mismatch');
  if (grantType === 'authorization_code') {
    if (err.error === 'invalid_request') {
      if (/missing required parameters? .*'code'/.test(description)) return grantError('Authorization code is required');
      if (/missing required parameter 'redirect_uri'/.test(description)) return grantError('Redirect URI mismatch');
      if (/^code_verifier /.test(description)) return grantError('Code verifier is invalid');
    }
    if (err.error === 'invalid_target') return grantError('Resource parameter mismatch');
    if (err.error === 'invalid_grant') {
      const row = CODE_DETAILS.find(([re]) => re.test(detail));
      return grantError(row ? row[1] : 'Invalid authorization code');
    }
  }
  if (grantType === 'refresh_token') {
    if (err.error === 'invalid_request' && /missing required parameter 'refresh_token'/.test(description)) return grantError('Refresh token is required');
    if (err.error === 'invalid_grant') {
      const row = REFRESH_DETAILS.find(([re]) => re.test(detail));
      return grantError(row ? row[1] : 'Invalid refresh token');
    }
  }
  return undefined;
}

/** Client authentication, shared by token and revoke: missing or wrong credentials are 401 invalid_client. */
function mapClientError(err: LibraryError): WireError | undefined {
  if (err.error === 'invalid_client') return { status: 401, error: 'invalid_client', description: 'Client authentication failed' };
  if (err.error === 'invalid_request' && /^(no client authentication mechanism provided|invalid authorization header value format)$/.test(err.error_description ?? '')) {
    return { status: 401, error: 'invalid_client', description: 'Client authentication failed' };
  }
  return undefined;
}

/** Revoke: 200 {} for tokens it cannot revoke (access tokens are JWTs, not tracked); 401 for client auth. */
export function mapRevocationError(err: LibraryError): WireError | 'success' | undefined {
  if (err.error === 'unsupported_token_type') return 'success';
  return mapClientError(err);
}
