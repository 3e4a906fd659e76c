import express, { type NextFunction, type Request, type Response } from 'express';
import { keepRawBody } from '../../http/idempotency.ts';

/** The content types a camt.053 file is sent with as a raw body. */
const XML = /^(application|text)\/(camt\+)?xml\b/i;

/** The largest camt.053 file taken as a raw body (a month of a busy account is a few MB). */
export const CAMT053_BODY_LIMIT = '10mb';

const text = express.text({ type: () => true, limit: CAMT053_BODY_LIMIT, verify: keepRawBody });

/**
 * `POST /api/v2/bank-statements` with `Content-Type: application/xml` (or text/xml): the camt.053
 * file as the body, `client_account_id` (and optionally `bank_account_id`) in the query. It is turned
 * into the JSON body the operation takes (`{client_account_id, bank_account_id, camt053}`), so the
 * import has one code path whatever way the file comes. The operation's `bodyParser`: run on that
 * route only, before the JSON parser, which then leaves the parsed body alone.
 */
export function camt053Body(req: Request, res: Response, next: NextFunction): void {
  if (!XML.test(String(req.headers['content-type'] ?? ''))) return next();
  text(req, res, (err?: unknown) => {
    if (err) return next(err);
    const query = req.query as Record<string, unknown>;
    // ids from the query string are text: numbers as a JSON body would give them (anything else is left for the 400/403)
    const id = (v: unknown) => (typeof v === 'string' && /^[1-9]\d{0,9}$/.test(v) ? Number(v) : v);
    req.body = {
      ...(query.client_account_id !== undefined ? { client_account_id: id(query.client_account_id) } : {}),
      ...(query.bank_account_id !== undefined ? { bank_account_id: id(query.bank_account_id) } : {}),
      camt053: typeof req.body === 'string' ? req.body : '',
    };
    next();
  });
}
