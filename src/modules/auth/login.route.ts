import { bearerChallenge } from '../../shared/errors.ts';
import type { Request, RequestHandler, Response } from 'express';
import type { Config } from '../../config.ts';
import type { Prisma } from '../../db/database.ts';
import { login } from './sessions.service.ts';

/**
 * POST /v2/oauth/login {email, password} -> 200 {access_token, token_type: "Bearer", expires_in}:
 * a session token acting as the user with read and write. Errors in the OAuth shape
 * {error, error_description}: 400 invalid_request for a malformed body, 401 for bad credentials.
 */
export function loginRoute(prisma: Prisma, config: Config): RequestHandler {
  return async (req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-store');
    const body = req.body as { email?: unknown; password?: unknown } | undefined;
    if (!body || typeof body !== 'object' || typeof body.email !== 'string' || typeof body.password !== 'string' || !body.email || !body.password) {
      return res.status(400).json({ error: 'invalid_request', error_description: 'Send a JSON object with string fields email and password' });
    }
    const session = await login(prisma, body.email, body.password, config.sessionTtlSeconds);
    if (!session) {
      res.setHeader('WWW-Authenticate', bearerChallenge({}));
      return res.status(401).json({ error: 'invalid_grant', error_description: 'Invalid email or password' });
    }
    res.json({ access_token: session.accessToken, token_type: 'Bearer', expires_in: session.expiresIn });
  };
}
