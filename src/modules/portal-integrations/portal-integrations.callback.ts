import { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { Prisma } from '../../db/database.ts';
import type { Integrations } from '../../integrations/integrations.ts';
import { systemContext } from '../../shared/context.ts';
import { escapeHtml, page } from '../oauth/http.ts';
import { LOGIN_SERVICES, type LoginService } from './portal-integrations.rules.ts';
import { finishLogin, LoginCallbackError } from './portal-integrations.service.ts';

const TITLES: Record<LoginService, string> = { idprovider: 'national login', govportal: 'government portal' };

const text = (v: unknown) => (typeof v === 'string' ? v.slice(0, 2000) : undefined);

/**
 * GET /public/v2/integrations/{idprovider|govportal}/callback: where the national login sends the
 * person's browser back (a browser route, not an operation: no bearer token, the state names the user
 * who started the login). Stores the connection (finishLogin) and answers a page saying so, or sends
 * the browser on to the return_to given at authorize. A failed login answers a page saying why (400
 * for a bad or stale callback, 502 when the login or the portal failed).
 */
export function portalCallbackRoutes(deps: { prisma: Prisma; integrations: Integrations; logger: Logger }): Router {
  const router = Router();
  router.get('/public/v2/integrations/:service/callback', async (req: Request, res: Response, next) => {
    const service = req.params.service as LoginService;
    if (!LOGIN_SERVICES.includes(service)) return next();
    const ctx = systemContext(deps.prisma, { integrations: deps.integrations, logger: deps.logger });
    try {
      const { returnTo } = await finishLogin(ctx, service, {
        state: text(req.query.state),
        code: text(req.query.code),
        error: text(req.query.error),
        errorDescription: text(req.query.error_description),
      });
      if (returnTo) return res.redirect(303, returnTo);
      page(res, 200, `Connected to the ${TITLES[service]}`, '<p>You are connected. You may close this window.</p>');
    } catch (e) {
      if (e instanceof LoginCallbackError) return page(res, e.status, 'Not connected', `<p role="alert">${escapeHtml(e.message)}</p>`);
      next(e);
    }
  });
  return router;
}
