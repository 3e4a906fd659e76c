import type { Request, Response } from 'express';
import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { AppError, boundedIssues, boundedMessage, type FieldIssue } from '../shared/errors.ts';
import { fromPrismaError, graphqlErrorCode } from '../shared/graphql-errors.ts';
import { toSnake } from '../shared/naming.ts';

/**
 * The one renderer of every non-2xx answer of every entry point. An error (an AppError from a
 * service or middleware, a GraphQL error, a Prisma error bad input caused, a body-parser error, or
 * anything unexpected, which is masked) becomes status + code + message + headers once, and is then
 * written in the shape of the entry point:
 *   simple   {error: <text>, status: <integer>}                  most /api/v2 endpoints (spec 000)
 *   envelope {error: {code, message, request_id}}                 reports, voucher delete (spec 000)
 *   oauth    {error: <oauth_code>, error_description: <text>}      OAuth endpoints, /mcp's 401
 *   graphql  {errors: [{message, extensions: {code, …}}]}         /graphql
 *   jsonrpc  {jsonrpc: "2.0", id: null, error: {code, message}}   /mcp (but its 401: oauth)
 */
export type ErrorShape = 'simple' | 'envelope' | 'oauth' | 'graphql' | 'jsonrpc';

export interface WireError {
  status: number;
  code: string;
  /** REST text: field paths snake_cased ("item_no: too long") */
  message: string;
  headers: Record<string, string>;
  issues: FieldIssue[];
  /** GraphQL extensions beside code and issues (a 429's retryAfter) */
  extensions: Record<string, unknown>;
}

const INTERNAL: WireError = { status: 500, code: 'common.internal_error', message: 'Internal server error', headers: {}, issues: [], extensions: {} };

/** "itemNo: too long" becomes "item_no: too long"; list indexes and names that are no camelCase field (a header) stay. */
function restMessage(message: string, issues: FieldIssue[]): string {
  if (!issues.length) return message;
  return issues
    .map((i) => (i.path.length ? `${i.path.map((p) => (/^[a-z][A-Za-z0-9]*$/.test(p) ? toSnake(p) : p)).join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/** express / body-parser / http-errors errors carry a status and a type. */
function fromHttpError(err: unknown): WireError | null {
  const e = err as { type?: string; status?: number; statusCode?: number; expose?: boolean; message?: string } | null;
  const status = e?.status ?? e?.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return null;
  const message =
    e!.type === 'entity.parse.failed'
      ? 'Malformed JSON in the request body'
      : e!.type === 'entity.too.large'
        ? 'The request body is too large'
        : e!.expose !== false && e!.message
          ? e!.message
          : 'Bad request';
  return { status, code: status === 400 ? 'common.validation_error' : 'common.bad_request', message, headers: {}, issues: [], extensions: {} };
}

/**
 * An error of any kind as status + code + text (+ headers); unexpected errors become a bare 500. The
 * text and the issues are bounded (input is never echoed whole, a list of bad values not issue by issue).
 */
export function toWireError(err: unknown): WireError {
  const wire = unbounded(err);
  return { ...wire, message: boundedMessage(wire.message), issues: boundedIssues(wire.issues) };
}

function unbounded(err: unknown): WireError {
  const raw = err instanceof GraphQLError && err.originalError ? err.originalError : err;
  const app = raw instanceof AppError ? raw : fromPrismaError(raw);
  if (app) return { status: app.status, code: app.code, message: restMessage(app.message, app.issues), headers: app.headers, issues: app.issues, extensions: app.extensions };
  if (err instanceof GraphQLError) {
    const ext = err.extensions as { code?: string; http?: { status?: number; headers?: Record<string, string> }; issues?: FieldIssue[] };
    // GraphQL's own parse, validation and variable-coercion errors are the client's
    if (!err.originalError || err.originalError instanceof GraphQLError || (ext?.http?.status && ext.http.status < 500)) {
      const issues = ext?.issues ?? [];
      return { status: ext?.http?.status ?? 400, code: graphqlErrorCode(err), message: restMessage(err.message, issues), headers: ext?.http?.headers ?? {}, issues, extensions: {} };
    }
  }
  return fromHttpError(raw) ?? INTERNAL;
}

/** OAuth error codes (RFC 6749 / 6750) for statuses outside the OAuth endpoints' own tables. */
const OAUTH_CODES: Record<number, string> = { 400: 'invalid_request', 401: 'invalid_token', 403: 'insufficient_scope', 429: 'rate_limit_exceeded', 500: 'server_error', 503: 'temporarily_unavailable' };

/**
 * The JSON-RPC error code of an HTTP-level error of /mcp: a body that is not JSON -32700 (Parse error),
 * any other 400 -32600 (Invalid Request: a batch array, no JSON-RPC message, a NUL in a string);
 * anything else (403 Origin, 405, 413, 429, 503, 500) -32000, the implementation-defined server error
 * the MCP SDK's transport also answers its own 406, 413 and 415 with.
 */
const jsonRpcCode = (err: WireError): number => (err.code === 'jsonrpc.parse_error' ? -32700 : err.status === 400 ? -32600 : -32000);

export function errorBody(err: WireError, shape: ErrorShape, requestId: string): unknown {
  // a bearer token's 401 keeps the OAuth shape on /mcp too (RFC 6750: the WWW-Authenticate challenge and its error code)
  if (shape === 'jsonrpc' && err.status === 401) shape = 'oauth';
  switch (shape) {
    case 'jsonrpc':
      return { jsonrpc: '2.0', id: null, error: { code: jsonRpcCode(err), message: err.message } };
    case 'envelope':
      return { error: { code: err.code, message: err.message, request_id: requestId } };
    case 'oauth':
      return { error: OAUTH_CODES[err.status] ?? (err.status >= 500 ? 'server_error' : 'invalid_request'), error_description: err.message };
    case 'graphql':
      return { errors: [{ message: err.message, extensions: { code: err.code, ...err.extensions, ...(err.issues.length ? { issues: err.issues } : {}) } }] };
    default:
      return { error: err.message, status: err.status };
  }
}

/** The entry point's shape when no route chose one: by path. */
export function errorShapeOf(req: Request, res: Response): ErrorShape {
  const chosen = res.locals.errorShape as ErrorShape | undefined;
  if (chosen) return chosen;
  return errorShapeOfPath(req.originalUrl.split('?')[0]);
}

/** The shape by path alone, for answers given before a route is known. */
export function errorShapeOfPath(path: string): ErrorShape {
  if (path === '/graphql' || path.startsWith('/graphql/')) return 'graphql';
  if (path === '/mcp') return 'jsonrpc';
  if (/^\/(public\/)?v2\/oauth(\/|$)/.test(path)) return 'oauth';
  return 'simple';
}

/**
 * Writes the error in the shape, with its headers; a 500 is logged with the request id and shows
 * nothing of its cause.
 */
export function sendError(res: Response, err: unknown, shape: ErrorShape, requestId: string, logger: Logger): void {
  const wire = toWireError(err);
  if (wire.status >= 500 && wire.status !== 503) logger.error({ err, requestId }, 'unexpected error'); // 503: load shed, expected
  if (res.headersSent) return void res.end();
  for (const [name, value] of Object.entries(wire.headers)) res.setHeader(name, value);
  if (shape === 'oauth' || (shape === 'jsonrpc' && wire.status === 401)) res.setHeader('Cache-Control', 'no-store');
  res.status(wire.status).json(errorBody(wire, shape, requestId));
}
