import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import { asOrigin } from '../config.ts';
import { ForbiddenError, JsonRpcRequestError } from '../shared/errors.ts';
import { jsonBody } from '../http/input-guard.ts';

/**
 * The HTTP side of POST /mcp that runs before the MCP SDK is loaded (src/mcp/mcp.ts): the Origin
 * check and the body's parsing. Their errors are JSON-RPC error responses (the renderer's `jsonrpc`
 * shape, src/http/error-renderer.ts).
 */

/**
 * The Streamable HTTP transport's check against DNS rebinding ("Servers MUST validate the Origin header
 * on all incoming connections to prevent DNS rebinding attacks. If the Origin header is present and
 * invalid, servers MUST respond with HTTP 403 Forbidden"): a request whose Origin is not one of
 * `origins` (config.mcpOrigins: BASE_URL's own and MCP_ALLOWED_ORIGINS) is refused before its token is
 * looked at. A request without Origin passes: browsers send one with every POST, and what sends none
 * (an MCP host, a server, a CLI) is no page a rebound DNS name could have loaded.
 */
export function mcpOriginGuard(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  return (req: Request, _res: Response, next: NextFunction) => {
    const origin = req.get('origin');
    if (origin === undefined) return next();
    const normalised = asOrigin(origin);
    if (normalised !== undefined && allowed.has(normalised)) return next();
    next(new ForbiddenError(`Origin ${origin ? JSON.stringify(origin.length > 100 ? `${origin.slice(0, 100)}…` : origin) : '(empty)'} may not call /mcp: only this server's own origin and MCP_ALLOWED_ORIGINS may (the MCP transport's protection against DNS rebinding)`));
  };
}

type Verify = NonNullable<Parameters<typeof jsonBody>[0]['verify']>;

/**
 * /mcp's JSON body (1 MB, any JSON value: `1` is an Invalid Request, not a parse error); a body that
 * is not JSON, an empty one included (which body-parser would take as {}), is the JSON-RPC Parse error
 * (-32700, HTTP 400).
 */
export function mcpBody(options: { verify: Verify }): [RequestHandler, ErrorRequestHandler] {
  const verify: Verify = (req, res, buf, encoding) => {
    if (!buf.length) throw new JsonRpcRequestError('Parse error: the body is empty (one JSON-RPC message was expected)', 'parse_error');
    options.verify(req, res, buf, encoding);
  };
  const parse = jsonBody({ limit: '1mb', verify, strict: false });
  const parseError: ErrorRequestHandler = (err: unknown, _req, _res, next) => {
    next((err as { type?: unknown } | null)?.type === 'entity.parse.failed' ? new JsonRpcRequestError('Parse error: the body is not valid JSON', 'parse_error') : err);
  };
  return [parse, parseError];
}
