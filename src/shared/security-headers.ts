import type { RequestHandler } from 'express';
import helmet from 'helmet';

/** The security headers of every response (helmet). */

/**
 * helmet for every response, before anything else answers (Content-Security-Policy: not yet, each
 * page needs its own first):
 *   - X-Frame-Options: DENY (frame-ancestors 'none' for browsers without CSP 2)
 *   - X-Content-Type-Options: nosniff
 *   - Referrer-Policy: strict-origin-when-cross-origin: another origin learns our origin, never a
 *     path or query (authorize parameters, state; the code arrives at /graphql?code=… and GraphiQL
 *     drops it from the URL at once). Not no-referrer: with it, browsers send `Origin: null` on the
 *     login and consent form posts, and an Origin check could no longer tell our own forms apart.
 *   - Strict-Transport-Security (1 year) only when BASE_URL is https: served over plain http it says
 *     nothing (browsers ignore it there) and behind a TLS proxy BASE_URL is the https address. Without
 *     includeSubDomains: the app answers for its own host, not for the names under it.
 *   - no Cross-Origin-Resource-Policy: /api/v2, /graphql, /mcp and the OAuth token endpoint are read
 *     from other origins (CORS); no response depends on a credential a no-cors request would carry
 *     (bearer tokens; the OAuth cookies are SameSite=Lax), and the OAuth pages set their own.
 *   - no Cross-Origin-Opener-Policy: clients open the authorize endpoint in a popup and read the
 *     redirect through window.opener (Swagger UI's oauth2-redirect.html does); COOP on those pages
 *     would cut that link. GraphiQL sets its own.
 *   - no Cross-Origin-Embedder-Policy (helmet's default): nothing here needs cross-origin isolation.
 *   - helmet's defaults for the rest: Origin-Agent-Cluster, X-DNS-Prefetch-Control: off,
 *     X-Download-Options, X-Permitted-Cross-Domain-Policies: none, X-XSS-Protection: 0.
 */
export function securityHeaders(baseUrl: string): RequestHandler {
  return helmet({
    contentSecurityPolicy: false,
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    strictTransportSecurity: new URL(baseUrl).protocol === 'https:' ? { maxAge: 365 * 24 * 3600, includeSubDomains: false } : false,
    crossOriginResourcePolicy: false,
    crossOriginOpenerPolicy: false,
  }) as RequestHandler;
}
