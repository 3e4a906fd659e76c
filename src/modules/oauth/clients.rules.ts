/**
 * Which redirect URIs a client may register (both registration endpoints). A redirect URI receives
 * authorization codes, so it must be one only the client can answer on:
 * - https, on any host;
 * - http only on the loopback interface (RFC 8252 §7.3: 127.0.0.1, [::1], localhost), for native
 *   and command-line apps listening on a local port;
 * - a private-use scheme of a native app (RFC 8252 §7.1), in reverse-domain form, i.e. containing a
 *   period (`com.example.app:/callback`); this also keeps out javascript:, data:, file: and the like.
 * Never a fragment (RFC 6749 §3.1.2) nor credentials in the URI.
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** The scheme of a private-use URI (RFC 8252 §7.1): RFC 3986 scheme syntax with at least one period. */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/;

export type RedirectUriKind = 'web' | 'loopback' | 'private-use';

/** What kind of redirect URI this is, or why it may not be registered. */
export function classifyRedirectUri(uri: string): { ok: true; kind: RedirectUriKind } | { ok: false; problem: string } {
  const refuse = (why: string) => ({ ok: false as const, problem: `redirect_uri ${JSON.stringify(uri)} ${why}` });
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return refuse('is not an absolute URI');
  }
  if (uri.includes('#')) return refuse('must not contain a fragment');
  if (url.username || url.password) return refuse('must not contain credentials');
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'https') return { ok: true, kind: 'web' };
  if (scheme === 'http') {
    return LOOPBACK_HOSTS.has(url.hostname) ? { ok: true, kind: 'loopback' } : refuse('must use https (http is allowed only on 127.0.0.1, [::1] or localhost)');
  }
  if (PRIVATE_USE_SCHEME.test(scheme)) return { ok: true, kind: 'private-use' };
  return refuse('must use https, http on a loopback address, or a private-use scheme in reverse-domain form such as com.example.app:/callback');
}
