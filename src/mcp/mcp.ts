import type { NextFunction, Request, Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, JSONRPCMessageSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RequestContext } from '../shared/context.ts';
import { boundedMessage, InsufficientScopeError, JsonRpcRequestError } from '../shared/errors.ts';
import { toSnake } from '../shared/naming.ts';
import { DEFAULT_QUERY_LIMITS, type QueryLimits } from '../shared/query-limits.ts';
import { toolbox, toolErrorBody, type ToolEntry } from './tools.ts';
import { jsonText } from '../shared/json-text.ts';
import { weigh } from '../http/admission.ts';

/**
 * POST /mcp: the Model Context Protocol tool endpoint (Streamable HTTP, stateless, JSON responses).
 * Every operation of the table is a tool named after its GraphQL operation (ListItems → list_items),
 * with an input schema derived from its variables: path and query parameters and the body's fields
 * flat at the top level (snake_case, as on REST), plus `with`. Two more tools run GraphQL documents:
 * `graphql_query` (read-only) and `graphql_mutation`. A token without `write` sees only the
 * read-only tools and gets a tool error for any other. `?modules=items,units` narrows tools/list to
 * those modules (the first path segment of each operation); the GraphQL tools are always listed.
 *
 * JSON-RPC errors: a tool that does not exist is -32602 (Invalid params, as the MCP tools specification
 * answers an unknown tool); a body that is not one JSON-RPC message is refused before the SDK sees it
 * (`checkMessage`: a batch array, which MCP 2025-06-18 removed, or no message at all, -32600 with HTTP 400).
 */

/** A tool's failure as MCP reports it: a result with isError and the tool's error body as text (the REST one, or /graphql's for the GraphQL tools). */
function toolError(ctx: RequestContext, e: unknown, entry?: ToolEntry): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(toolErrorBody(ctx, e, entry?.errorShape)) }] };
}

/**
 * A JSON-RPC error answering a request: the SDK answers a thrown error's `code` and `message` (McpError
 * would write "MCP error -32602: " into the message, which clients then prefix again).
 */
const rpcError = (code: ErrorCode, message: string) => Object.assign(new Error(boundedMessage(message)), { code });

/** The POST /mcp handler (the bearer middleware has put the request context on req.ctx). */
export function createMcpHandler(schema: GraphQLSchema, info: { name: string; version: string }, options: { queryLimits?: QueryLimits; heavyCost?: number } = {}) {
  const { tools, byName, modules } = toolbox(schema, options.queryLimits ?? DEFAULT_QUERY_LIMITS);

  /** A call of a tool that writes: the Idempotency-Key applies to it (src/http/idempotency.ts). */
  const isWriteCall = (req: Request): boolean => {
    const msg = req.body as { method?: unknown; params?: { name?: unknown } } | null | undefined;
    return msg?.method === 'tools/call' && byName.get(String(msg.params?.name))?.readOnly === false;
  };

  /**
   * The parsed body is one JSON-RPC 2.0 message (a request, a notification or a response), checked
   * before the Idempotency-Key or the SDK sees it. A batch array is refused: MCP 2025-06-18 removed
   * JSON-RPC batching ("The body of the POST request MUST be a single JSON-RPC request, notification, or
   * response"). A body of another content type is left to the SDK's transport (415).
   */
  const checkMessage = (req: Request, _res: Response, next: NextFunction): void => {
    if (!req.is('application/json')) return next();
    if (Array.isArray(req.body)) {
      return next(new JsonRpcRequestError('Invalid Request: JSON-RPC batches are not supported (MCP removed them in 2025-06-18); send one message per POST', 'invalid_request'));
    }
    if (!JSONRPCMessageSchema.safeParse(req.body).success) {
      return next(new JsonRpcRequestError('Invalid Request: the body is no JSON-RPC 2.0 message (an object with jsonrpc "2.0" and a method, or a response to one)', 'invalid_request'));
    }
    next();
  };

  const handle = async (req: Request, res: Response) => {
    const ctx = (req as Request & { ctx: RequestContext }).ctx;
    const canWrite = ctx.actor.scopes.has('write');
    const wanted = typeof req.query.modules === 'string' ? new Set(req.query.modules.split(/[,; ]+/).filter(Boolean).map((m) => toSnake(m).replace(/_/g, '-'))) : undefined;
    const server = new Server(
      { ...info, title: 'Accounting API' },
      {
        capabilities: { tools: { listChanged: false } },
        instructions: `Tools for a Norwegian accounting API; each REST operation is a tool, plus graphql_query and graphql_mutation. Modules: ${modules.join(', ')} (narrow the list with ?modules=… on the endpoint URL). Decimals are strings (only the balance sheet's balance is a JSON number, with its exact digits); dates YYYY-MM-DD.`,
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: tools.filter((t) => (canWrite || t.readOnly) && (!wanted || t.module === 'graphql' || wanted.has(t.module))).map((t) => t.tool),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
      const entry = byName.get(request.params.name);
      // a protocol error, not a tool's result (MCP tools specification: "Unknown tools" are -32602)
      if (!entry) throw rpcError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      try {
        if (!entry.readOnly && !canWrite) throw new InsufficientScopeError('write');
        const result = await entry.call(ctx, request.params.arguments ?? {}, { weigh: (weight) => weigh(req, weight), heavyCost: options.heavyCost ?? 0 });
        return { content: [{ type: 'text', text: jsonText(result) }] };
      } catch (e) {
        return toolError(ctx, e, entry);
      }
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  };
  return { handle, isWriteCall, checkMessage };
}
