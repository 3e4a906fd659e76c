import { formBody, jsonBody } from '../../http/input-guard.ts';
import express, { type Router } from 'express';
import type { Config } from '../../config.ts';
import type { Prisma } from '../../db/database.ts';
import type { Authenticator } from '../../http/authentication.ts';
import type { RateLimitName } from '../../http/rate-limit.ts';
import type { RequestHandler } from 'express';
import { loginRoute } from '../auth/login.route.ts';
import { authorizeRoute } from './authorize.route.ts';
import { openCors } from './http.ts';
import { clientsRouter, dynamicRegistrationRoute } from './clients.route.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from './discovery.route.ts';
import { loginPage } from './login-page.route.ts';
import type { OauthProvider } from './provider.ts';
import { revokeRoute, tokenRoute } from './token.route.ts';

/** The two prefixes spec 000 gives for authorize, token, revoke (and the JWKS). */
export const OAUTH_PREFIXES = ['/v2/oauth', '/public/v2/oauth'] as const;

/**
 * Every OAuth path of spec 000, mounted at the root of the app. One router serves both prefixes, so
 * each rate limiter (one instance per endpoint) counts requests to either prefix together.
 */
export function oauthRoutes(deps: { oauth: OauthProvider; prisma: Prisma; config: Config; authenticator: Authenticator; limits: Record<RateLimitName, RequestHandler> }): Router {
  const { oauth, prisma, config, limits } = deps;
  const form = formBody({ limit: '16kb' });
  const json = jsonBody({ limit: '16kb' });

  const prefixed = express.Router();
  const authorize = authorizeRoute({ oauth, prisma, baseUrl: config.baseUrl });
  prefixed.get('/authorize', limits.authorize, authorize);
  prefixed.post('/authorize', limits.consent, form, authorize);
  prefixed.post('/token', limits.token, form, tokenRoute({ oauth, prisma }));
  prefixed.post('/revoke', limits.revoke, form, revokeRoute({ oauth }));
  prefixed.get('/jwks', (req, res) => oauth.callback(req, res));
  // CORS preflight of token, revoke and jwks: the provider answers (see clientBasedCORS in provider.ts)
  prefixed.options(['/token', '/revoke', '/jwks'], (req, res) => oauth.callback(req, res));

  const router = express.Router();
  router.post('/v2/oauth/login', limits.login, json, loginRoute(prisma, config));
  router.options('/v2/oauth/register', openCors);
  router.post('/v2/oauth/register', openCors, limits.register, json, dynamicRegistrationRoute(oauth));
  router.use('/v2/oauth/clients', clientsRouter(deps));
  const login = loginPage({ oauth, prisma });
  router.get('/public/v2/oauth/login', login.get);
  router.post('/public/v2/oauth/login', limits.login, form, login.post);
  for (const prefix of OAUTH_PREFIXES) router.use(prefix, prefixed);
  router.use('/.well-known', openCors);
  router.get('/.well-known/oauth-authorization-server', authorizationServerMetadata(config.baseUrl));
  router.get(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/{*path}'], protectedResourceMetadata(config.baseUrl));
  return router;
}
