import type { ErrorRequestHandler, RequestHandler } from 'express';
import { JsonRpcRequestError } from '../src/shared/errors.ts';
import { jsonBody } from '../src/shared/input-guard.ts';

/**
 * The HTTP side of POST /mcp that runs before the MCP SDK is loaded (rest-adapter/mcp.ts): the body's
 * parsing. Its errors are JSON-RPC error responses (the renderer's `jsonrpc`
 * shape, src/shared/error-renderer.ts).
 */

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
