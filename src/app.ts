import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import cors from 'cors';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Config } from './config.ts';
import { changeRetention } from './modules/changes/changes.service.ts';
import { serveChangeSubscriptions } from './modules/changes/changes.listener.ts';
import { configureWebhooks } from './modules/webhooks/webhooks.service.ts';
import type { Database } from './db/database.ts';
import type { Logger } from './shared/logger.ts';
import { schema } from './schema.ts';
import { createRestRouter, errorShapeRouter, operations } from '../rest-adapter/index.ts';
import { PUBLIC_PREFIX } from '../rest-adapter/operation.ts';
import { operationBodies } from '../rest-adapter/multipart.ts';
import { fileUrlRoutes } from './modules/files/file-serving.route.ts';
import { docsRoutes } from './openapi/docs-route.ts';
import { ANONYMOUS, Authenticator } from './http/authentication.ts';
import { createRequestContext, type Actor, type RequestContext } from './shared/context.ts';
import { ReferenceCache } from './shared/reference-cache.ts';
import { boundValidationErrors, graphqlErrorCodes, guardGraphqlInput, maskError, partialDataStatus, requireToken } from './shared/graphql-errors.ts';
import { queryLimitsPlugin } from './shared/query-limits.ts';
import { checkTrustedDocuments, persistedOperations } from './shared/persisted-operations.ts';
import { graphqlCacheHeaders } from './shared/graphql-cache-headers.ts';
import { guardGraphqlHttp, guardPath, guardQuery, jsonBody } from './http/input-guard.ts';
import { errorShapeOf, sendError } from './http/error-renderer.ts';
import { admissionControl, release, requestKeys, type Admission } from './http/admission.ts';
import { bodyTimeout, timedOut } from './http/body-timeout.ts';
import { bearerChallenge, MethodNotAllowedError, NoSuchEndpointError, UnauthenticatedError } from './shared/errors.ts';
import type { createMcpHandler } from './mcp/mcp.ts';
import { mcpBody, mcpOriginGuard } from './mcp/mcp-http.ts';
import { PACKAGE_VERSION } from './version.ts';
import { sessionTokenVerifier } from './modules/auth/sessions.service.ts';
import { loadOauthKeys } from './modules/oauth/keys.ts';
import { healthRoutes, type Readiness } from './observability/health.ts';
import { graphqlTracing } from './observability/tracing.ts';
import { createMetrics, graphqlMetrics, methodLabel, metricsRoute, operationOf, type Metrics } from './observability/metrics.ts';
import { apiResourceIdentifiers, createOauthProvider, mcpResourceIdentifiers, normalizeResource, type OauthProvider } from './modules/oauth/provider.ts';
import { jwtTokenVerifier } from './modules/oauth/jwt-verifier.ts';
import { userTokenIssuer } from './modules/oauth/user-tokens.ts';
import { oauthRoutes } from './modules/oauth/oauth.routes.ts';
import { createApiRateLimiter, createAttemptLimiter, createRateLimiters, OAUTH_RATE_LIMITS, PASSWORD_CHECK_LIMIT, type RateLimitRules } from './http/rate-limit.ts';
import { graphiqlDefaultQuery, graphiqlPage, type DemoInfo } from './graphiql.ts';
import { securityHeaders } from './http/security-headers.ts';
import { compressResponses } from './http/compression.ts';
import { landingPage } from './landing-page.ts';
import { createFileServices } from './modules/files/file-services.ts';
import { createIntegrations } from './integrations/integrations.ts';
import { bufferGraphqlBody, idempotency, isGraphqlMutation, isWriteMethod, keepRawBody } from './http/idempotency.ts';
import { portalCallbackRoutes } from './modules/portal-integrations/portal-integrations.callback.ts';

export interface AppDeps {
  config: Config;
  db: Database;
  logger: Logger;
  /** rate limits replacing the defaults: spec 000's table for the OAuth endpoints, config.apiRateLimit, PASSWORD_CHECK_LIMIT */
  rateLimits?: Partial<RateLimitRules>;
  /** prefix of the rate-limit keys: apps sharing one database share counts only with the same namespace */
  rateLimitNamespace?: string;
  /** the demo seeded on this database (findDemo): GET / and GraphiQL's first query show it */
  demo?: DemoInfo | null;
  /** the process's metrics (GET /metrics); default: a registry of this app's own */
  metrics?: Metrics;
}

export interface App {
  express: express.Express;
  /** the admission gate: the server tells it when start-up is over (forgetDelay) */
  admission: Admission;
  authenticator: Authenticator;
  oauth: OauthProvider;
  /** GET /metrics' registry: the server hands it to the job runner too */
  metrics: Metrics;
  /** what GET /health/ready checks besides the database: the server sets `jobs` once they run */
  readiness: Readiness;
}

/** the paths admission control lets through at once: a load balancer and a scraper must see a busy server is alive */
const UNGATED = new Set(['/health', '/health/live', '/health/ready', '/metrics']);

type ContextRequest = Request & { ctx: RequestContext; requestId: string; clientRequestId?: string };

/**
 * A subscription's event stream, once established (its checks passed), waits for events rather than
 * working: its request gives its admission slot back (src/http/admission.ts, `release`), or a user's
 * open subscriptions would take their share of slots for as long as they last.
 */
const releaseStreams: Plugin = {
  onSubscribe: ({ args }) => ({
    onSubscribeResult: ({ result }) => {
      const req = (args.contextValue as { req?: Request }).req;
      if (req && result && typeof result === 'object' && Symbol.asyncIterator in result) release(req);
    },
  }),
};
/**
 * The request's context as yoga's execution context. Yoga's `context` option merges what it returns
 * with Object.assign, which reads every getter, so the context's logger and loaders, made on first
 * use (src/shared/context.ts), were made for every request; copying the properties' descriptors
 * keeps them lazy.
 */
const requestContext: Plugin<{ req: ContextRequest }> = {
  onContextBuilding: ({ context }) => {
    Object.defineProperties(context, Object.getOwnPropertyDescriptors(context.req.ctx));
  },
};
/** A caller's X-Request-Id that is kept (logged and echoed): 8–128 letters, digits and `_.:-`. */
const CLIENT_REQUEST_ID = /^[\w.:-]{8,128}$/;
/** the entry points that take bearer tokens */
type Entry = 'api' | 'graphql' | 'mcp';


/**
 * Builds the HTTP application: the OAuth authorization server (/v2/oauth, /public/v2/oauth,
 * /.well-known), the REST adapter under /api/v2 and GraphQL at /graphql.
 */
export async function createApp({ config, db, logger, rateLimits, rateLimitNamespace, demo = null, metrics = createMetrics() }: AppDeps): Promise<App> {
  const app = express();
  app.disable('x-powered-by');
  changeRetention.days = config.changeRetentionDays; // the feed's 410 rule (one retention per process)
  app.set('trust proxy', config.trustProxy);
  configureWebhooks({ allowPrivateUrls: config.webhookAllowPrivateUrls });
  serveChangeSubscriptions(db, logger); // GraphQL subscriptions of the change feed: this process's LISTEN, opened with the first subscriber
  // nosniff, Referrer-Policy, X-Frame-Options, a CSP for non-pages (pages set theirs), HSTS on https: see security-headers.ts
  app.use(securityHeaders(config.baseUrl));
  // br/gzip for HTML, JS and JSON of 1 KB and more; handlers below write plain bytes (compression.ts)
  app.use(compressResponses());
  const keys = await loadOauthKeys(db.prisma, { jwks: config.oauthJwks, cookieKeys: config.oauthCookieKeys });
  const oauth = createOauthProvider({ config, prisma: db.prisma, keys, logger });
  const authenticator = new Authenticator();
  authenticator.register(sessionTokenVerifier({ cacheSeconds: config.sessionCacheSeconds }));
  authenticator.register(jwtTokenVerifier(keys, config.baseUrl));

  // Every request's id is a UUID made here (spec 000: the v2 envelope's request_id is a "<uuid
  // string>"): every answer's x-request-id, the envelope's request_id, the logs' requestId. A caller's
  // own X-Request-Id is never that id: when well-formed it is logged beside it (clientRequestId) and
  // echoed in X-Client-Request-Id.
  app.use((req, res, next) => {
    const r = req as ContextRequest;
    const id = randomUUID();
    const incoming = req.get('x-request-id');
    r.requestId = id;
    r.clientRequestId = incoming && CLIENT_REQUEST_ID.test(incoming) ? incoming : undefined;
    res.setHeader('x-request-id', id);
    if (r.clientRequestId) res.setHeader('x-client-request-id', r.clientRequestId);
    const started = performance.now();
    res.on('finish', () => {
      metrics.observeRequest(operationOf(req, res), methodLabel(req.method), res.statusCode, (performance.now() - started) / 1000);
      logger.info(
        {
          requestId: id,
          ...(r.clientRequestId ? { clientRequestId: r.clientRequestId } : {}),
          method: req.method,
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          ms: Math.round(performance.now() - started),
          userId: (r as Partial<ContextRequest>).ctx?.actor.userId,
        },
        'request',
      );
    });
    next();
  });

  // the route's error shape first, so the path and query guards' 400 and a 503 below take it too
  app.use('/api/v2', errorShapeRouter());
  app.use(guardPath);
  app.use(guardQuery);

  // At most config.admission.concurrency slots at work, at most perKey of them one user's; the rest
  // wait their turn, users served in turn, or are told 503 + Retry-After (health checks pass: a load
  // balancer must see a busy server is alive). The bearer middleware tells `admissionKeys` whose a token is.
  const admissionKeys = requestKeys();
  const admission = admissionControl({ ...config.admission, keyOf: admissionKeys.keyOf });
  metrics.watchAdmission(admission);
  app.use((req, res, next) => (UNGATED.has(req.path) ? next() : admission.middleware(req, res, next)));
  // the body must be in REQUEST_BODY_TIMEOUT_MS after admission: else 408 in the path's shape, connection closed
  app.use(
    bodyTimeout(config.requestBodyTimeoutMs, (req, res, error) => {
      const r = req as ContextRequest;
      sendError(res, error, errorShapeOf(req, res), r.requestId, logger);
    }),
  );

  // Browsers on other origins may call the bearer-token entry points (no cookies there): preflights
  // are answered here, before any authentication.
  const crossOriginOptions = {
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'Idempotency-Key', 'X-Request-Id', 'Mcp-Protocol-Version', 'Mcp-Session-Id', 'Last-Event-Id'],
    exposedHeaders: ['X-Request-Id', 'X-Client-Request-Id', 'WWW-Authenticate', 'Idempotent-Replayed', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy', 'Mcp-Session-Id', 'Allow'],
    maxAge: 600,
  } satisfies cors.CorsOptions;
  const crossOrigin = cors({ ...crossOriginOptions, origin: config.corsOrigins === '*' ? '*' : config.corsOrigins });
  app.use(['/api/v2', '/graphql', PUBLIC_PREFIX], crossOrigin);
  // /mcp: the origins its Origin check lets through (config.mcpOrigins), never `*`
  app.use('/mcp', cors({ ...crossOriginOptions, origin: config.mcpOrigins }));

  // /graphql's own pipeline, filled in below once yoga is built: mounted here, before the OAuth
  // routes and the REST mounts it never matches, so a GraphQL request walks only the layers it needs
  // (each layer passed is a path match; some 30 of them were a fifth of a `{ __typename }`'s time)
  const graphqlRoute = express.Router();
  app.use('/graphql', graphqlRoute);

  // where a first visit lands: the links of the start banner, the demo login when seeded (landing-page.ts)
  app.get('/', landingPage(demo, config.baseUrl));
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  const readiness: Readiness = {};
  const health = healthRoutes(db, readiness);
  app.get('/health/live', health.live);
  app.get('/health/ready', health.ready);
  app.get('/metrics', metricsRoute(metrics, config.metricsToken));

  const rules: RateLimitRules = { ...OAUTH_RATE_LIMITS, api: config.apiRateLimit, passwordCheck: PASSWORD_CHECK_LIMIT, ...rateLimits };
  const namespace = rateLimitNamespace ?? '';
  const limits = createRateLimiters(db.prisma, { rules, namespace });
  app.use(oauthRoutes({ oauth, prisma: db.prisma, config, authenticator, limits }));
  /** one count per user across /api/v2, /graphql and /mcp (mounted after each one's bearer middleware) */
  const apiLimit = createApiRateLimiter(db.prisma, rules.api, { namespace });
  /** reference rows (units) this app's requests read from memory after the first load */
  const reference = new ReferenceCache();
  const files = await createFileServices(config, db.prisma, logger);
  const serviceLimits = { passwordCheck: createAttemptLimiter(db.prisma, `${namespace}password-check:user:`, rules.passwordCheck, 'password checks') };
  /** the OAuth tokens of an accepted invitation */
  const userTokens = userTokenIssuer(oauth, config.baseUrl);
  /** the connectors to the external services (their sandbox when no URL is configured) */
  const integrations = createIntegrations(config.integrations);
  /** a request's context: the actor, and what every entry point's services may use */
  const contextFor = (req: Request, actor: Actor) => {
    const r = req as ContextRequest;
    const authorization = req.get('authorization');
    return createRequestContext({
      db: db.prisma,
      actor,
      requestId: r.requestId,
      logger: () => logger.child({ requestId: r.requestId, ...(r.clientRequestId ? { clientRequestId: r.clientRequestId } : {}), userId: actor.userId }),
      limits: serviceLimits,
      reference,
      files,
      userTokens,
      acceptLanguage: req.get('accept-language'),
      integrations,
      // the same token checked again: expired, revoked or signed out since
      credentialsValid: authorization ? async () => (await authenticator.authenticate(authorization, db.prisma)) !== null : undefined,
    });
  };

  /**
   * Bearer middleware: token -> actor -> request context; 401 without a valid token. On /graphql a
   * request without a token gets an anonymous context: it may introspect the (public) schema, and
   * anything else is refused by `requireToken` below as a GraphQL response.
   */
  const challenge = (entry: Entry, error?: string) =>
    bearerChallenge({ realm: config.baseUrl, resourceMetadata: `${config.baseUrl}/.well-known/oauth-protected-resource${entry === 'api' ? '' : `/${entry}`}`, error });
  /** the audiences each entry point accepts (a JWT bound to /mcp is no token for /api/v2, and the reverse) */
  const apiAudiences = new Set(apiResourceIdentifiers(config.baseUrl).map(normalizeResource));
  const audiences: Record<Entry, ReadonlySet<string>> = {
    api: apiAudiences,
    graphql: apiAudiences,
    mcp: new Set(mcpResourceIdentifiers(config.baseUrl).map(normalizeResource)),
  };
  const bearer = (entry: Entry) => async (req: Request, _res: Response, next: NextFunction) => {
    const r = req as ContextRequest;
    const authorization = req.get('authorization');
    if (entry === 'graphql' && req.method === 'GET' && !authorization && req.accepts(['application/json', 'text/html']) === 'text/html') {
      return next(); // the GraphiQL page itself is public; its requests carry the token
    }
    try {
      let actor = await authenticator.authenticate(authorization, db.prisma);
      if (actor?.audience && !actor.audience.some((a) => audiences[entry].has(a))) actor = null;
      if (!actor && !authorization && entry === 'graphql') actor = ANONYMOUS;
      if (!actor) throw new UnauthenticatedError('A valid bearer token is required', challenge(entry, authorization ? 'invalid_token' : undefined));
      if (actor !== ANONYMOUS && actor.scopes.size === 0) throw new UnauthenticatedError('The token grants no scope', challenge(entry, 'invalid_token'));
      admissionKeys.remember(req, actor);
      r.ctx = contextFor(req, actor);
      next();
    } catch (e) {
      next(e);
    }
  };

  // JSON bodies whatever the content type (legacy clients often omit it); uploads are multipart and a few operations read a body of their own (a camt.053 file): operationBodies, on their routes only.
  // The bytes are kept for the Idempotency-Key fingerprint.
  const json = jsonBody({ limit: '1mb', type: (req) => !String(req.headers['content-type'] ?? '').startsWith('multipart/'), verify: keepRawBody });
  app.use('/api/v2', docsRoutes(schema, { baseUrl: config.baseUrl })); // public: openapi.json and the docs page
  // public too: a presigned file URL's signature is its authorisation
  app.use('/api/v2', fileUrlRoutes({ prisma: db.prisma, files }));
  app.use('/api/v2', bearer('api'), apiLimit, operationBodies(operations), json, idempotency({ prisma: db.prisma, isWrite: isWriteMethod }), createRestRouter(schema));
  // The public operations (spec 000: "public (unauthenticated) resources at {base_url}/public/v2/..."):
  // no token, an anonymous caller; the OAuth paths under /public/v2/oauth are answered above.
  const anonymous = (req: Request, _res: Response, next: NextFunction) => {
    (req as ContextRequest).ctx = contextFor(req, ANONYMOUS);
    next();
  };
  // The browser callbacks of the national login and the government portal (no token: the state names the user)
  app.use(portalCallbackRoutes({ prisma: db.prisma, integrations, logger }));
  app.use(PUBLIC_PREFIX, anonymous, json, createRestRouter(schema, operations, { public: true }));
  // The MCP handler (its SDK and the tool list) is built for the first authenticated call of /mcp,
  // not at start-up, which it made about 0.1 s slower for a protocol many deployments never see.
  let mcp: ReturnType<typeof createMcpHandler> | undefined;
  let mcpLoading: Promise<unknown> | undefined;
  const loadMcp = (_req: Request, _res: Response, next: NextFunction) => {
    if (mcp) return next();
    mcpLoading ??= import('./mcp/mcp.ts').then((m) => {
      mcp = m.createMcpHandler(
        schema,
        { name: 'accounting-api', version: PACKAGE_VERSION },
        { queryLimits: config.graphqlLimits, heavyCost: config.graphqlHeavyCost, onToolCall: (tool, outcome) => metrics.observeToolCall(tool, outcome) },
      );
    });
    mcpLoading.then(() => next(), next);
  };
  // the transport's Origin check (against DNS rebinding) comes first: a page's request is refused before its token is looked at
  app.all('/mcp', mcpOriginGuard(config.mcpOrigins));
  app.post(
    '/mcp',
    bearer('mcp'),
    apiLimit,
    ...mcpBody({ verify: keepRawBody }),
    loadMcp,
    (req: Request, res: Response, next: NextFunction) => mcp!.checkMessage(req, res, next),
    idempotency({ prisma: db.prisma, isWrite: (req) => mcp!.isWriteCall(req) }),
    (req: Request, res: Response) => mcp!.handle(req, res),
  );
  app.all('/mcp', (req, _res, next) => next(new MethodNotAllowedError(`Method ${req.method} is not allowed on /mcp: every call is a POST (stateless Streamable HTTP)`, ['POST'])));

  const defaultQuery = graphiqlDefaultQuery(demo);
  const graphiql = graphiqlPage({ title: 'Accounting API', defaultQuery, query: defaultQuery }, config.baseUrl);
  if (config.persistedOperations.trusted) checkTrustedDocuments(schema, config.persistedOperations.trusted);
  /** documents by hash: trusted ones (GRAPHQL_PERSISTED_OPERATIONS) and, unless only those run, those clients registered (APQ) */
  const persisted = persistedOperations(config.persistedOperations);
  const yoga: YogaServerInstance<{ req: ContextRequest; res: Response }, RequestContext> = createYoga({
    schema,
    graphqlEndpoint: '/graphql',
    maskedErrors: { maskError: (error, message) => maskError(error, message, logger) },
    graphiql: false, // the page is graphiql.serve's, compressed once
    logging: false,
    landingPage: false,
    // bufferGraphqlBody enforces the 1 MB limit before yoga (413 from Content-Length, chunked bodies
    // read with the limit); yoga's own check piped every body through a TransformStream again
    maxRequestBodySize: false,
    // persisted operations first (a hash becomes its document), then the query limits before
    // GraphQL's validation, the token check before execution
    plugins: [
      requestContext,
      ...persisted.plugins,
      guardGraphqlInput,
      boundValidationErrors,
      queryLimitsPlugin(config.graphqlLimits, { heavyCost: config.graphqlHeavyCost }),
      requireToken(challenge('graphql')),
      graphqlErrorCodes,
      partialDataStatus,
      graphqlCacheHeaders(),
      graphqlMetrics(metrics),
      ...(config.tracing ? [graphqlTracing()] : []),
      releaseStreams,
    ],
  });
  // Mutations carrying Idempotency-Key: their body is buffered so the selected operation can be seen
  // (a persisted one's by its hash).
  const graphqlIdempotency = idempotency({ prisma: db.prisma, isWrite: (req) => isGraphqlMutation(req, persisted.documentOf) });
  graphqlRoute.use(guardGraphqlHttp, bearer('graphql'), apiLimit, graphiql.serve, bufferGraphqlBody(), graphqlIdempotency, (req, res) => yoga(req as ContextRequest, res));

  app.use((req, _res, next) => {
    next(new NoSuchEndpointError(req.method, req.path));
  });

  // Last: every error that escaped, in the entry point's shape (express' own handler would answer HTML).
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const r = req as ContextRequest;
    // the body parser failing on the connection a 408 closed: answered already
    if (timedOut(req)) return void res.end();
    sendError(res, err, errorShapeOf(req, res), r.requestId, r.clientRequestId ? logger.child({ clientRequestId: r.clientRequestId }) : logger);
  });

  return { express: app, admission, authenticator, oauth, metrics, readiness };
}
