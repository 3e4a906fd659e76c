import type { NextFunction, Request, Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, JSONRPCMessageSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RequestContext } from '../shared/context.ts';
import { boundedMessage, InsufficientScopeError, JsonRpcRequestError } from '../shared/errors.ts';
import { DEFAULT_QUERY_LIMITS, type QueryLimits } from '../shared/query-limits.ts';
import { pageHint, toolbox, toolErrorBody, type ToolEntry } from './tools.ts';
import { DEFAULT_TOOLSETS, listedTools, listedToolsets, metaTools, resolveOperation } from './toolsets.ts';
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
 * A tool's answer: the REST response body as JSON text (its numbers exact), the same as
 * structuredContent (wrapped as {result} where the tool's outputSchema says so), and after a page of a
 * list a second text saying how to get the next.
 */
function toolResult(result: unknown, entry: ToolEntry): CallToolResult {
  const text = jsonText(result);
  const value: unknown = JSON.parse(text);
  const hint = entry.paged && pageHint(value, entry.paged.firstPage);
  return {
    content: [{ type: 'text', text }, ...(hint ? [{ type: 'text' as const, text: hint }] : [])],
    structuredContent: (entry.wrapped ? { result: value } : value) as Record<string, unknown>,
  };
}

/**
 * A JSON-RPC error answering a request: the SDK answers a thrown error's `code` and `message` (McpError
 * would write "MCP error -32602: " into the message, which clients then prefix again).
 */
const rpcError = (code: ErrorCode, message: string) => Object.assign(new Error(boundedMessage(message)), { code });

/** The POST /mcp handler (the bearer middleware has put the request context on req.ctx). */
export function createMcpHandler(
  schema: GraphQLSchema,
  info: { name: string; version: string },
  options: { queryLimits?: QueryLimits; heavyCost?: number; onToolCall?: (tool: string, outcome: 'ok' | 'error') => void } = {},
) {
  const box = toolbox(schema, options.queryLimits ?? DEFAULT_QUERY_LIMITS);
  const { tools, byName, modules } = box;

  /** A call of a tool that writes (call_operation: of a write tool): the Idempotency-Key applies to it (src/http/idempotency.ts). */
  const isWriteCall = (req: Request): boolean => {
    const msg = req.body as { method?: unknown; params?: { name?: unknown; arguments?: { name?: unknown } } } | null | undefined;
    if (msg?.method !== 'tools/call') return false;
    const name = msg.params?.name === 'call_operation' ? msg.params.arguments?.name : msg.params?.name;
    return byName.get(String(name))?.readOnly === false;
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
    const toolsets = listedToolsets(typeof req.query.modules === 'string' ? req.query.modules : undefined);
    const meta = metaTools(box, canWrite, toolsets);
    const metaByName = new Map(meta.map((t) => [t.tool.name, t]));
    const server = new Server(
      { ...info, title: 'Accounting API' },
      {
        capabilities: { tools: { listChanged: false } },
        instructions: [
          `Tools for a Norwegian accounting API: each operation is a tool, grouped in toolsets (${modules.filter((m) => m !== 'graphql').join(', ')}), plus graphql_query and graphql_mutation.`,
          `tools/list shows ${toolsets === 'all' ? 'every toolset' : `the toolsets ${[...toolsets].join(', ') || '(none)'}`}; list_toolsets lists the others and their tools, describe_operation gives a tool's arguments, call_operation calls any tool by name. A host lists other toolsets with ?modules=a,b on the endpoint URL (?modules=all: every tool; none: ${DEFAULT_TOOLSETS.join(', ')}).`,
          'Lists answer a small page and say how to get the next. Decimals are strings such as "1250.50" (a JSON number only with at most 15 significant digits; only the balance sheet\'s balance is answered as a JSON number); dates YYYY-MM-DD.',
        ].join(' '),
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [...listedTools(tools, canWrite, toolsets), ...meta].map((t) => t.tool),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
      let entry = byName.get(request.params.name) ?? metaByName.get(request.params.name);
      // a protocol error, not a tool's result (MCP tools specification: "Unknown tools" are -32602)
      if (!entry) throw rpcError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      let args = request.params.arguments ?? {};
      try {
        // call_operation runs the tool it names, as that tool runs (its scope, validation, answer and error shape)
        if (entry.tool.name === 'call_operation') ({ entry, args } = resolveOperation(box, args));
        if (!entry.readOnly && !canWrite) throw new InsufficientScopeError('write');
        const result = await entry.call(ctx, args, { weigh: (weight) => weigh(req, weight), heavyCost: options.heavyCost ?? 0 });
        const answer = toolResult(result, entry);
        options.onToolCall?.(entry.tool.name, answer.isError ? 'error' : 'ok');
        return answer;
      } catch (e) {
        options.onToolCall?.(entry.tool.name, 'error');
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
