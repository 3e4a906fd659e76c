import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

/**
 * The security headers of every response (helmet), and the Content-Security-Policy of each kind of
 * page. Responses are of four kinds:
 *   - JSON and everything else that is no page (the API, OAuth endpoints, errors): API_POLICY
 *   - the GraphiQL page (GET /graphql as HTML, graphiql.ts): graphiqlPolicy, with its inline scripts' hashes
 *   - the Swagger UI docs page and its files (/api/v2/docs, docs-route.ts): docsPolicy
 *   - the server's small pages, GET / and the OAuth login and consent pages (http/page.ts): oauthPagePolicy
 * A page sets its own policy when it renders; it replaces the one helmet set for every response.
 */

/** A Content-Security-Policy as directive name → sources (names as in the header, `'self'` quoted). */
export type Directives = Record<string, string[]>;

/** The header value of a policy. */
export const serializePolicy = (directives: Directives): string =>
  Object.entries(directives)
    .map(([name, sources]) => [name, ...sources].join(' '))
    .join('; ');

/** The CSP source that allows an inline <script> or <style> with exactly this text. */
export const hashSource = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * Responses that are no page: nothing may load from them, nothing may frame them. It costs nothing
 * to an API client (browsers apply CSP to documents only) and makes a JSON answer that a browser
 * opens as a document inert.
 */
export const API_POLICY: Directives = { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] };

/**
 * A stored file shown inline by a presigned URL (modules/files/file-serving.route.ts): a PDF or an
 * image may display (the browser's own viewer, its inline styles and the image itself), nothing else
 * loads, nothing may frame it. Any other type is served with `sandbox` added (no script, no forms,
 * an opaque origin): an uploaded XML or text file opened in a browser stays inert.
 */
export const FILE_POLICY: Directives = {
  'default-src': ["'none'"],
  'img-src': ["'self'"],
  'style-src': ["'unsafe-inline'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/** Directives every page shares: nothing by default, no <base>, no plugins, never framed (clickjacking). */
const PAGE_BASE: Directives = {
  'default-src': ["'none'"],
  'base-uri': ["'none'"],
  'object-src': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/**
 * GraphiQL (@graphql-yoga/render-graphiql inlines everything, graphiql.ts adds the sign-in script):
 *   - scripts: only the page's own inline scripts, by hash (no 'unsafe-inline', no other file)
 *   - workers: Monaco (the editor) starts its language workers from blob: URLs
 *   - styles: GraphiQL and Monaco add <style> elements and style attributes at run time: 'unsafe-inline'
 *   - images and fonts: the favicon and Monaco's icon font are data: URLs
 *   - fetch: the GraphQL endpoint and the OAuth token and revocation endpoints, all on BASE_URL
 *   - forms: GraphiQL submits none; the sign-in leaves the page by navigation, which form-action does not govern
 */
export const graphiqlPolicy = (scriptHashes: string[], baseUrl: string): Directives => ({
  ...PAGE_BASE,
  'script-src': scriptHashes,
  'worker-src': ['blob:'],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'", new URL(baseUrl).origin],
  'form-action': ["'none'"],
});

/**
 * Swagger UI at /api/v2/docs: its files are served by the app and the page has no inline script by
 * design (init.js), so scripts and styles come from 'self' only; its stylesheet has data: images.
 * "Try it out" and the OAuth token request go to the servers and token URL of the OpenAPI document,
 * which are on BASE_URL (another origin than the page's when the page is opened under another name).
 */
export const docsPolicy = (baseUrl: string): Directives => ({
  ...PAGE_BASE,
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'", new URL(baseUrl).origin],
  'form-action': ["'self'"],
});

/**
 * The OAuth login and consent pages: no script at all, their one <style> by hash. `formAction` is
 * where the page's form may go, including where the server redirects the submission: Chrome and
 * Safari check form-action against every redirect that follows a form submission, and the consent
 * form ends in a redirect to the client's redirect_uri (w3c/webappsec-csp#8).
 */
export const oauthPagePolicy = (styleHash: string, formAction: string[]): Directives => ({
  ...PAGE_BASE,
  'style-src': [styleHash],
  'form-action': formAction.length ? formAction : ["'none'"],
});

/**
 * The CSP source for a redirect target: its origin for http(s) URLs with a host CSP can name, else
 * its scheme (a native app's `com.example.app:/callback`, or an IPv6 literal, which CSP host sources
 * cannot express). Browsers match redirects by origin only, ignoring the path.
 */
export function redirectTargetSource(uri: string): string {
  const url = new URL(uri);
  if ((url.protocol === 'https:' || url.protocol === 'http:') && !url.hostname.startsWith('[')) return url.origin;
  return url.protocol;
}

/**
 * helmet for every response, before anything else answers:
 *   - Content-Security-Policy: API_POLICY (pages replace it with theirs)
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
  const helmetMiddleware = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: API_POLICY },
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    strictTransportSecurity: new URL(baseUrl).protocol === 'https:' ? { maxAge: 365 * 24 * 3600, includeSubDomains: false } : false,
    crossOriginResourcePolicy: false,
    crossOriginOpenerPolicy: false,
  }) as RequestHandler;
  // The headers depend on nothing in the request: helmet runs once, at boot, on a recording response,
  // and every response gets what it set and removed (eleven middlewares per request before).
  const set: [string, string][] = [];
  const removed: string[] = [];
  const recorder = {
    setHeader: (name: string, value: string) => set.push([name, value]),
    removeHeader: (name: string) => removed.push(name),
  };
  let ranThrough = false;
  helmetMiddleware({} as Request, recorder as unknown as Response, (err?: unknown) => {
    ranThrough = err === undefined;
  });
  if (!ranThrough) return helmetMiddleware;
  return (_req, res, next) => {
    for (const [name, value] of set) res.setHeader(name, value);
    for (const name of removed) res.removeHeader(name);
    next();
  };
}

/** The docs page's policy as middleware (helmet validates the directives once, at boot). */
export const docsSecurityPolicy = (baseUrl: string): RequestHandler =>
  helmet.contentSecurityPolicy({ useDefaults: false, directives: docsPolicy(baseUrl) }) as RequestHandler;
