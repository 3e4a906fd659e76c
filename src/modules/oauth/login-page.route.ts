import type { Request, RequestHandler, Response } from 'express';
import type { Prisma } from '../../db/database.ts';
import { authenticateUser } from '../auth/sessions.service.ts';
import { csrfToken, csrfValid, escapeHtml, page } from './http.ts';
import { TTL, type OauthProvider } from './provider.ts';

/** Only our own authorize endpoints are valid `next` targets (no open redirect). */
const SAFE_NEXT = /^\/(public\/)?v2\/oauth\/authorize(\?|$)/;

/**
 * GET and POST /public/v2/oauth/login: the browser sign-in of the authorization code flow. The form
 * is CSRF-protected; a successful sign-in starts the authorization server's browser session (its
 * signed cookie) and returns the user to `next`, the authorize URL that sent them here.
 */
export function loginPage(deps: { oauth: OauthProvider; prisma: Prisma }): { get: RequestHandler; post: RequestHandler } {
  const { provider } = deps.oauth;

  const render = (req: Request, res: Response, status: number, next: string, error?: string, email = '') => {
    const csrf = csrfToken(req, res);
    page(
      res,
      status,
      'Sign in',
      `${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/public/v2/oauth/login">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="next" value="${escapeHtml(next)}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(email)}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
      // the form posts here; the answer is this page again or a redirect to our authorize endpoint (`next`)
      ["'self'"],
    );
  };
  const nextOf = (value: unknown) => (typeof value === 'string' && SAFE_NEXT.test(value) ? value : '');

  return {
    get: (req, res) => render(req, res, 200, nextOf(req.query.next)),
    async post(req, res) {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const next = nextOf(body.next);
      if (!csrfValid(req)) return render(req, res, 403, next, 'The form expired. Please sign in again.');
      const email = typeof body.email === 'string' ? body.email : '';
      const password = typeof body.password === 'string' ? body.password : '';
      const user = email && password ? await authenticateUser(deps.prisma, email, password) : null;
      if (!user) return render(req, res, 401, next, 'Wrong email or password.', email);

      const ctx = provider.createContext(req, res);
      const session = await provider.Session.get(ctx);
      if (session.accountId !== String(user.id)) session.authorizations = {};
      session.resetIdentifier(); // a new id at every sign-in (session fixation)
      session.loginAccount({ accountId: String(user.id) });
      await session.save(TTL.browserSession);
      ctx.cookies.set(provider.cookieName('session'), (session as unknown as { id: string }).id, { httpOnly: true, sameSite: 'lax', signed: true, maxAge: TTL.browserSession * 1000 });
      if (next) return res.redirect(303, next);
      page(res, 200, 'Signed in', `<p>You are signed in as ${escapeHtml(user.email)}. You can close this page.</p>`);
    },
  };
}
