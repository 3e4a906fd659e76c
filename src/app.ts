import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { Logger } from './shared/logger.ts';
import { schema } from './schema.ts';
import { createRestRouter } from '../rest-adapter/index.ts';
import { Authenticator } from './shared/authentication.ts';
import { createRequestContext, type RequestContext } from './shared/context.ts';
import { maskError } from './shared/graphql-errors.ts';
import { sessionTokenVerifier } from './modules/auth/sessions.service.ts';
import { loadOauthKeys } from './modules/oauth/keys.ts';
import { createOauthProvider, type OauthProvider } from './modules/oauth/provider.ts';
import { jwtTokenVerifier } from './modules/oauth/jwt-verifier.ts';
import { oauthRoutes } from './modules/oauth/oauth.routes.ts';
import { createRateLimiters, type RateLimitName, type RateLimitRule } from './shared/rate-limit.ts';
import { graphiqlDefaultQuery, renderGraphiQLWithSignIn } from './graphiql.ts';

export interface AppDeps {
  config: Config;
  db: Database;
  logger: Logger;
  /** rate limits of the OAuth endpoints; default: spec 000's table */
  rateLimits?: Record<RateLimitName, RateLimitRule>;
  /** prefix of the rate-limit keys: apps sharing one database share counts only with the same namespace */
  rateLimitNamespace?: string;
}

export interface App {
  express: express.Express;
  authenticator: Authenticator;
  oauth: OauthProvider;
}

type ContextRequest = Request & { ctx: RequestContext; requestId: string };

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Builds the HTTP application: the OAuth authorization server (/v2/oauth, /public/v2/oauth,
 * /.well-known), the REST adapter under /api/v2 and GraphQL at /graphql.
 */
export async function createApp({ config, db, logger, rateLimits, rateLimitNamespace }: AppDeps): Promise<App> {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  const keys = await loadOauthKeys(db.prisma, { jwks: config.oauthJwks, cookieKeys: config.oauthCookieKeys });
  const oauth = createOauthProvider({ config, prisma: db.prisma, keys, logger });
  const authenticator = new Authenticator();
  authenticator.register(sessionTokenVerifier);
  authenticator.register(jwtTokenVerifier(keys, config.baseUrl));

  // Every response carries x-request-id (a caller's own id is kept when it looks like one).
  app.use((req, res, next) => {
    const incoming = req.get('x-request-id');
    const id = incoming && /^[\w.:-]{8,128}$/.test(incoming) ? incoming : randomUUID();
    (req as ContextRequest).requestId = id;
    res.setHeader('x-request-id', id);
    const started = performance.now();
    res.on('finish', () => {
      const r = req as Partial<ContextRequest>;
      logger.info(
        { requestId: id, method: req.method, path: req.originalUrl.split('?')[0], status: res.statusCode, ms: Math.round(performance.now() - started), userId: r.ctx?.actor.userId },
        'request',
      );
    });
    next();
  });

  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  const limits = createRateLimiters(db.prisma, { rules: rateLimits, namespace: rateLimitNamespace });
  app.use(oauthRoutes({ oauth, prisma: db.prisma, config, authenticator, limits }));

  /** Bearer middleware: token -> actor -> request context; 401 without a valid token. */
  const bearer = (options: { allowGraphiQL: boolean }) => async (req: Request, res: Response, next: NextFunction) => {
    const r = req as ContextRequest;
    if (options.allowGraphiQL && req.method === 'GET' && !req.get('authorization') && req.accepts(['application/json', 'text/html']) === 'text/html') {
      return next(); // GraphiQL page itself; its requests carry the token
    }
    try {
      const actor = await authenticator.authenticate(req.get('authorization'), db.prisma);
      if (!actor || actor.scopes.size === 0) {
        res.setHeader(
          'WWW-Authenticate',
          `Bearer realm="${config.baseUrl}", resource_metadata="${config.baseUrl}/.well-known/oauth-protected-resource"${req.get('authorization') ? ', error="invalid_token"' : ''}`,
        );
        return res.status(401).json({ error: actor ? 'The token grants no scope' : 'A valid bearer token is required', status: 401 });
      }
      const isRest = req.baseUrl === '/api/v2';
      if (isRest && WRITE_METHODS.has(req.method) && !actor.scopes.has('write')) {
        res.setHeader('WWW-Authenticate', 'Bearer error="insufficient_scope", scope="write", error_description="The token lacks the write scope"');
        return res.status(403).json({ error: 'This operation requires the write scope', status: 403 });
      }
      r.ctx = createRequestContext({
        db: db.prisma,
        actor,
        requestId: r.requestId,
        logger: logger.child({ requestId: r.requestId, userId: actor.userId }),
      });
      next();
    } catch (e) {
      next(e);
    }
  };

  // JSON bodies whatever the content type (legacy clients often omit it); uploads will be multipart.
  const json = express.json({ limit: '1mb', type: (req) => !String(req.headers['content-type'] ?? '').startsWith('multipart/') });
  app.use('/api/v2', bearer({ allowGraphiQL: false }), json, createRestRouter(schema));

  const yoga: YogaServerInstance<{ req: ContextRequest; res: Response }, RequestContext> = createYoga({
    schema,
    graphqlEndpoint: '/graphql',
    context: ({ req }) => req.ctx,
    maskedErrors: { maskError: (error, message) => maskError(error, message, logger) },
    graphiql: { title: 'Accounting API', defaultQuery: graphiqlDefaultQuery(config.baseUrl), headers: JSON.stringify({ Authorization: 'Bearer <paste a token>' }, null, 2) },
    renderGraphiQL: (options) => renderGraphiQLWithSignIn(options, config.baseUrl),
    logging: false,
    landingPage: false,
  });
  app.use('/graphql', bearer({ allowGraphiQL: true }), (req, res) => yoga(req as ContextRequest, res));

  app.use((req, res) => {
    res.status(404).json({ error: `No such endpoint: ${req.method} ${req.path}`, status: 404 });
  });

  // Last: JSON for everything that escaped (express' own handler would answer HTML with a stack), in
  // the OAuth shape {error, error_description} on the OAuth paths and {error, status} elsewhere.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = err as { type?: string; status?: number; statusCode?: number; message?: string };
    const status = e.type === 'entity.parse.failed' ? 400 : (e.status ?? e.statusCode ?? 500);
    const message = e.type === 'entity.parse.failed' ? 'Malformed JSON in the request body' : status < 500 ? (e.message ?? 'Bad request') : 'Internal server error';
    if (status >= 500) logger.error({ err, requestId: (req as ContextRequest).requestId }, 'unhandled error');
    const code = status >= 500 ? 500 : status;
    if (/^\/(public\/)?v2\/oauth\//.test(req.path)) {
      return res.status(code).json({ error: code === 500 ? 'server_error' : 'invalid_request', error_description: message });
    }
    res.status(code).json({ error: message, status: code });
  });

  return { express: app, authenticator, oauth };
}
