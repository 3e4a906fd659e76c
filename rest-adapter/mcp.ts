import type { Request, Response } from 'express';
import { execute, getOperationAST, GraphQLError, validate, type GraphQLSchema } from 'graphql';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { RequestContext } from '../src/shared/context.ts';
import { errorBody, toWireError } from '../src/shared/error-renderer.ts';
import { boundedMessage, InsufficientScopeError, ValidationError } from '../src/shared/errors.ts';
import { guardDocument } from '../src/shared/input-guard.ts';
import { toSnake } from '../src/shared/naming.ts';
import { DEFAULT_QUERY_LIMITS, parseQuery, queryLimitErrors, type QueryLimits } from '../src/shared/query-limits.ts';
import type { CompiledOperation } from './compile.ts';
import { compiledOperations, runOperation } from './index.ts';
import { inputSchema, type JsonSchema } from './json-schema.ts';
import type { OperationRequest } from './variables.ts';
import { operationPaths, restPath, withParameter } from './operation.ts';

/**
 * POST /mcp: the Model Context Protocol tool endpoint (Streamable HTTP, stateless, JSON responses).
 * Every operation of the table is a tool named after its GraphQL operation (ListItems → list_items),
 * with an input schema derived from its variables: path and query parameters and the body's fields
 * flat at the top level (snake_case, as on REST), plus `with`. Two more tools run GraphQL documents:
 * `graphql_query` (read-only) and `graphql_mutation`. A token without `write` sees only the
 * read-only tools and gets a tool error for any other. `?modules=items,units` narrows tools/list to
 * those modules (the first path segment of each operation); the GraphQL tools are always listed.
 */

interface ToolEntry {
  tool: Tool;
  module: string;
  readOnly: boolean;
  call(ctx: RequestContext, args: Record<string, unknown>): Promise<unknown>;
}

const moduleOf = (path: string) => path.split('/')[1];

/** How a tool's flat arguments split into path, query and body again. */
function operationTool(schema: GraphQLSchema, compiled: CompiledOperation): ToolEntry {
  const { op } = compiled;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const place: Record<string, 'params' | 'query' | 'body'> = {};
  for (const v of compiled.variables) {
    if (v.source === 'body') continue;
    const where = v.source === 'path' ? 'params' : v.source === 'query' ? 'query' : 'body';
    properties[v.wire] = inputSchema(v.type);
    place[v.wire] = where;
    if (v.required || v.source === 'path') required.push(v.wire);
  }
  for (const b of compiled.boundFields) {
    if (place[b.wire]) continue;
    properties[b.wire] = inputSchema(b.type);
    place[b.wire] = 'params';
    required.push(b.wire);
  }
  let nestedBody = false;
  if (compiled.bodyVariable) {
    const body = inputSchema(compiled.bodyVariable.type, { omit: new Set(compiled.boundFields.map((b) => b.field)) });
    const fields = body.properties as Record<string, JsonSchema>;
    nestedBody = Object.keys(fields).some((k) => k in properties || k === withParameter(op));
    if (nestedBody) {
      properties.body = body;
      required.push('body');
    } else {
      Object.assign(properties, fields);
      for (const k of Object.keys(fields)) place[k] = 'body';
      required.push(...((body.required as string[] | undefined) ?? []));
    }
  }
  const relations = withParameter(op);
  if (op.with) {
    properties[relations] = {
      type: 'array',
      items: { type: 'string', enum: [...op.with.allowed] },
      description: `related records to embed${op.with.default?.length ? `; default: ${op.with.default.join(', ')}` : ''}`,
    };
  }
  const readOnly = !compiled.isMutation;
  return {
    module: moduleOf(op.path),
    readOnly,
    tool: {
      name: compiled.toolName,
      title: op.summary.split(/[.:]/)[0],
      description: `${op.summary} (REST: ${op.method} ${operationPaths(op).map((p) => restPath({ ...op, path: p }).replace(/:(\w+)/g, '{$1}')).join(' or ')})`,
      inputSchema: { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false },
      annotations: { readOnlyHint: readOnly, destructiveHint: op.method === 'DELETE', idempotentHint: op.method !== 'POST', openWorldHint: false },
    },
    async call(ctx, args) {
      const request: OperationRequest = { params: {}, query: {}, body: nestedBody ? args.body : undefined };
      const body: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(args)) {
        if (op.with && key === relations) request.query[relations] = value;
        else if (place[key] === 'params') request.params[key] = value;
        else if (place[key] === 'query') request.query[key] = value;
        else if (place[key] === 'body') body[key] = value;
        else if (key !== 'body' || !nestedBody) throw ValidationError.field(key, 'is not an argument of this tool');
      }
      if (!nestedBody && (compiled.bodyVariable || Object.keys(body).length)) request.body = body;
      return (await runOperation(schema, compiled, ctx, request)).body;
    },
  };
}

/** graphql_query / graphql_mutation: a document and its variables, run as on /graphql (the same limits first). */
function graphqlTool(schema: GraphQLSchema, kind: 'query' | 'mutation', limits: QueryLimits): ToolEntry {
  const readOnly = kind === 'query';
  return {
    module: 'graphql',
    readOnly,
    tool: {
      name: `graphql_${kind}`,
      title: readOnly ? 'Run a GraphQL query' : 'Run a GraphQL mutation',
      description: readOnly
        ? 'Runs a GraphQL query on the API schema (the same as POST /graphql; introspect it or read schema.graphql). Mutations are refused: use graphql_mutation.'
        : 'Runs a GraphQL mutation on the API schema (the same as POST /graphql). Needs the write scope.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: `a GraphQL document with one ${kind}, or several and an operationName` },
          variables: { type: 'object', description: 'variables of the operation' },
          operationName: { type: 'string' },
        },
        required: ['query'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: readOnly, destructiveHint: !readOnly, idempotentHint: readOnly, openWorldHint: false },
    },
    async call(ctx, args) {
      const query = args.query;
      if (typeof query !== 'string') throw ValidationError.field('query', 'must be a GraphQL document');
      const operationName = typeof args.operationName === 'string' ? args.operationName : undefined;
      guardDocument(query);
      const variables = args.variables ?? {};
      if (typeof variables !== 'object' || Array.isArray(variables)) throw ValidationError.field('variables', 'must be a JSON object');
      let document;
      try {
        document = parseQuery(query, limits);
      } catch (e) {
        if (e instanceof GraphQLError && e.extensions.limit) throw e;
        throw new ValidationError((e as Error).message);
      }
      const refused = queryLimitErrors(schema, document, limits, { variables: variables as Record<string, unknown>, operationName });
      if (refused.length) throw refused[0];
      const errors = validate(schema, document);
      if (errors.length) throw new ValidationError(errors.map((e) => e.message).join('; '));
      const operation = getOperationAST(document, operationName);
      if (!operation) throw ValidationError.field('operationName', 'must name one operation of the document');
      if (operation.operation !== kind) throw ValidationError.field('query', `is a ${operation.operation}; this tool runs a ${kind}`);
      const result = await execute({ schema, document, operationName, variableValues: variables as Record<string, unknown>, contextValue: ctx });
      return { ...(result.data !== undefined ? { data: result.data } : {}), ...(result.errors?.length ? { errors: result.errors.map((e) => shownError(ctx, e)) } : {}) };
    },
  };
}

/** A GraphQL error as /graphql shows it: the client's own errors in full, unexpected ones masked. */
function shownError(ctx: RequestContext, e: GraphQLError) {
  const wire = toWireError(e);
  if (wire.status >= 500) ctx.logger.error({ err: e.originalError ?? e, requestId: ctx.requestId }, 'unexpected error in an MCP GraphQL tool');
  return { message: wire.status >= 500 ? 'Unexpected error.' : boundedMessage(e.message), ...(e.path ? { path: e.path } : {}), extensions: { code: wire.code, ...wire.extensions } };
}

/** A tool's failure as MCP reports it: a result with isError and the REST error body as text. */
function toolError(ctx: RequestContext, e: unknown): CallToolResult {
  const wire = toWireError(e);
  if (wire.status >= 500) ctx.logger.error({ err: e, requestId: ctx.requestId }, 'unexpected error in an MCP tool');
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(errorBody(wire, 'simple', ctx.requestId)) }] };
}

/** The POST /mcp handler (the bearer middleware has put the request context on req.ctx). */
export function createMcpHandler(schema: GraphQLSchema, info: { name: string; version: string }, options: { queryLimits?: QueryLimits } = {}) {
  const limits = options.queryLimits ?? DEFAULT_QUERY_LIMITS;
  const tools: ToolEntry[] = [...compiledOperations(schema).map((c) => operationTool(schema, c)), graphqlTool(schema, 'query', limits), graphqlTool(schema, 'mutation', limits)];
  const byName = new Map(tools.map((t) => [t.tool.name, t]));
  const modules = [...new Set(tools.map((t) => t.module))];

  /** A call of a tool that writes: the Idempotency-Key applies to it (src/shared/idempotency.ts). */
  const isWriteCall = (req: Request): boolean => {
    const messages: unknown[] = Array.isArray(req.body) ? req.body : [req.body];
    return messages.some((m) => {
      const msg = m as { method?: unknown; params?: { name?: unknown } } | null;
      return msg?.method === 'tools/call' && byName.get(String(msg.params?.name))?.readOnly === false;
    });
  };

  const handle = async (req: Request, res: Response) => {
    const ctx = (req as Request & { ctx: RequestContext }).ctx;
    const canWrite = ctx.actor.scopes.has('write');
    const wanted = typeof req.query.modules === 'string' ? new Set(req.query.modules.split(/[,; ]+/).filter(Boolean).map((m) => toSnake(m).replace(/_/g, '-'))) : undefined;
    const server = new Server(
      { ...info, title: 'Accounting API' },
      {
        capabilities: { tools: { listChanged: false } },
        instructions: `Tools for a Norwegian accounting API; each REST operation is a tool, plus graphql_query and graphql_mutation. Modules: ${modules.join(', ')} (narrow the list with ?modules=… on the endpoint URL). Decimals are strings; dates YYYY-MM-DD.`,
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: tools.filter((t) => (canWrite || t.readOnly) && (!wanted || t.module === 'graphql' || wanted.has(t.module))).map((t) => t.tool),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
      const entry = byName.get(request.params.name);
      try {
        if (!entry) throw ValidationError.field('name', `no tool '${request.params.name}'`);
        if (!entry.readOnly && !canWrite) throw new InsufficientScopeError('write');
        const result = await entry.call(ctx, request.params.arguments ?? {});
        return { content: [{ type: 'text', text: JSON.stringify(result) }] };
      } catch (e) {
        return toolError(ctx, e);
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
  return { handle, isWriteCall };
}
