import { execute, getNamedType, getNullableType, getOperationAST, GraphQLError, isListType, isObjectType, Kind, validate, type GraphQLSchema } from 'graphql';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { RequestContext } from '../shared/context.ts';
import { errorBody, toWireError } from '../http/error-renderer.ts';
import { boundedMessage, ValidationError } from '../shared/errors.ts';
import { guardDocument } from '../http/input-guard.ts';
import { isStoresNothing } from '../builder.ts';
import { checkQuery, DEFAULT_QUERY_LIMITS, parseQuery, queryWeight, type QueryLimits } from '../shared/query-limits.ts';
import type { CompiledOperation } from '../../rest-adapter/compile.ts';
import { compiledOperations, runOperation } from '../../rest-adapter/index.ts';
import { inputSchema, type JsonSchema } from '../openapi/json-schema.ts';
import { briefSchema, isPaged, outlineSchema, toolInputSchema, toolOutputSchema } from './tool-schemas.ts';
import type { OperationRequest } from '../../rest-adapter/variables.ts';
import { isDestructive, operationPaths, operationWeight, restPath, withDefaults, withParameter } from '../../rest-adapter/operation.ts';

/**
 * The tools of the operation table: one per operation, named after its GraphQL operation
 * (ListItems → list_items), with an input schema derived from its variables (path and query
 * parameters and the body's fields flat at the top level, snake_case as on REST, plus `with`), and
 * two that run GraphQL documents, `graphql_query` (read-only) and `graphql_mutation`. POST /mcp
 * serves them (src/mcp/mcp.ts) and the chat assistant calls them (src/assistant/):
 * one definition, so the model in a chat sees the same names, schemas and descriptions as an MCP host.
 */

export interface ToolEntry {
  tool: Tool;
  module: string;
  /** needs no `write` scope (MCP readOnlyHint): an operation's tool whose REST method is GET, and graphql_query */
  readOnly: boolean;
  /** a write tool that stores nothing (its GraphQL field is marked `storesNothing`): a chat preview lists no change for it */
  storesNothing?: boolean;
  /**
   * The shape of the tool's failures: the REST error body `{error, status}` (the operations' tools),
   * or as /graphql answers, `{errors: [{message, extensions: {code, …}}]}` (graphql_query and
   * graphql_mutation: every error with its code, as on /graphql).
   */
  errorShape: 'simple' | 'graphql';
  /** the GraphQL type of the record the operation answers with (Document for get_document, update_document …), if one */
  recordType?: string;
  /**
   * The GraphQL argument (or input field) a top-level argument of the tool is passed to, where its
   * name differs: `id` of create_voucher_statement is the field's `voucherId`, `id` of
   * create_item_collection_entry the input's `itemCollectionId`.
   */
  argumentNames?: Readonly<Record<string, string>>;
  /** the operation's REST method and path(s) (`GET /api/v2/items`), for describe_operation; none for the GraphQL tools */
  rest?: string;
  /**
   * The tool's structuredContent is its answer wrapped as `{result: answer}` (an answer that is not
   * surely a JSON object: an array, a record of a nullable field, a record or {}): its outputSchema says so.
   */
  wrapped?: boolean;
  /** a paged list: the call asks for TOOL_PAGE_SIZE records unless per_page is given; `pageHint` says how to get the next page */
  paged?: { firstPage: number };
  /** the whole output schema (describe_operation's; tools/list shows its outline, `tool.outputSchema`) */
  fullOutputSchema?: JsonSchema;
  /** the whole input schema, every description whole (describe_operation's; tools/list shows it brief) */
  fullInputSchema?: JsonSchema;
  call(ctx: RequestContext, args: Record<string, unknown>, admission?: ToolAdmission): Promise<unknown>;
}

/**
 * A call through an HTTP entry point (POST /mcp) holds its weight in admission control as the REST
 * route and /graphql do (src/http/admission.ts): an operation's `operationWeight`, a GraphQL
 * document's `queryWeight`. The chat assistant's calls (in a job, no request) are not weighed.
 */
export interface ToolAdmission {
  weigh(weight: number): Promise<void>;
  /** GRAPHQL_HEAVY_COST */
  heavyCost: number;
}

const moduleOf = (path: string) => path.split('/')[1];

/**
 * The page size of a paged list tool when the call gives no per_page: a model reads every record it
 * is given, so a tool answers a small page and says how to get the next (REST keeps its own defaults).
 */
export const TOOL_PAGE_SIZE = 20;

/**
 * The annotations of a read-only tool: destructiveHint and idempotentHint are "meaningful only when
 * readOnlyHint == false" (MCP tools specification), so they are left out.
 */
export const READ_ONLY = Object.freeze({ readOnlyHint: true, openWorldHint: false });

/**
 * An operation's summary as a model reads it: without what only concerns a REST client (the trailing
 * slash of a path, the envelope of its errors, a quote of the spec, the path a POST form stands for).
 */
export function toolDescription(summary: string): string {
  return summary
    .replace(/\s*\(the trailing slash is part of the path\)/g, '')
    .replace(/\s*\(spec \d+: [^)]*\)/g, '')
    .replace(/\s*\(POST form of [^)]*\)/g, '')
    .replace(/\s*Errors in the v2 envelope\./g, '')
    .trim();
}

/** The text that follows a page of a list: where the list stands and how to get the next page. */
export function pageHint(body: unknown, firstPage: number): string | undefined {
  const meta = (body as { meta?: { page?: unknown; pages?: unknown; per_page?: unknown; records?: unknown } } | null)?.meta;
  if (!meta || typeof meta.page !== 'number' || typeof meta.pages !== 'number') return undefined;
  const last = meta.pages - 1 + firstPage;
  if (meta.page >= last) return undefined;
  const shown = meta.page - firstPage + 1;
  return `Page ${shown} of ${meta.pages}${typeof meta.records === 'number' ? ` (${meta.records} records)` : ''}: call again with page ${meta.page + 1} for the next${typeof meta.per_page === 'number' ? ` ${meta.per_page}` : ''} (per_page sets the page size).`;
}

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
  // a JSON-array body (a list-typed body variable) is one argument of the tool, named as the variable
  const listBody = compiled.bodyVariable && isListType(getNullableType(compiled.bodyVariable.type)) ? compiled.bodyVariable : undefined;
  if (listBody) {
    properties[listBody.wire] = inputSchema(listBody.type);
    place[listBody.wire] = 'body';
    required.push(listBody.wire);
  } else if (compiled.bodyVariable) {
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
    const defaults = withDefaults(op);
    properties[relations] = {
      type: 'array',
      items: { type: 'string', enum: [...op.with.allowed] },
      description: `related records to embed${defaults.length ? `; default: ${defaults.join(', ')}` : ''}${op.with.always?.length ? `; always: ${op.with.always.join(', ')}` : ''}`,
    };
  }
  const readOnly = !compiled.needsWrite;
  const top = compiled.operation.selectionSet.selections[0];
  const root = (compiled.isMutation ? schema.getMutationType() : schema.getQueryType())!;
  const rootField = top.kind === Kind.FIELD ? root.getFields()[top.name.value] : undefined;
  const returned = rootField?.type;
  const named = returned && getNamedType(returned);
  const argumentOf = new Map<string, string>();
  if (top.kind === Kind.FIELD) for (const a of top.arguments ?? []) if (a.value.kind === Kind.VARIABLE) argumentOf.set(a.value.name.value, a.name.value);
  const argumentNames: Record<string, string> = {};
  for (const v of compiled.variables) if (v.source !== 'body' && argumentOf.has(v.name) && argumentOf.get(v.name) !== v.wire) argumentNames[v.wire] = argumentOf.get(v.name)!;
  for (const b of compiled.boundFields) argumentNames[b.wire] = b.field;
  const output = toolOutputSchema(compiled, root);
  const input = toolInputSchema({ type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false });
  const pageArgument = rootField?.args.find((a) => a.name === 'page');
  const paged = isPaged(compiled) ? { firstPage: pageArgument?.defaultValue === 0 ? 0 : 1 } : undefined;
  return {
    module: op.toolset ?? moduleOf(op.path),
    recordType: named && isObjectType(named) ? named.name : undefined,
    argumentNames,
    readOnly,
    storesNothing: isStoresNothing(rootField),
    errorShape: 'simple',
    rest: `${op.method} ${operationPaths(op).map((p) => restPath({ ...op, path: p }).replace(/:(\w+)/g, '{$1}')).join(' or ')}`,
    wrapped: output.wrapped,
    paged,
    fullOutputSchema: output.schema,
    fullInputSchema: input,
    tool: {
      name: compiled.toolName,
      description: `${toolDescription(op.summary)}${paged ? ` Answers ${TOOL_PAGE_SIZE} a page unless per_page (pages from ${paged.firstPage}).` : ''}`,
      inputSchema: briefSchema(input) as Tool['inputSchema'],
      outputSchema: outlineSchema(output.schema) as Tool['outputSchema'],
      annotations: readOnly ? READ_ONLY : { readOnlyHint: false, destructiveHint: isDestructive(op), idempotentHint: op.method !== 'POST', openWorldHint: false },
    },
    async call(ctx, args, admission) {
      const request: OperationRequest = { params: {}, query: {}, body: nestedBody ? args.body : undefined };
      const body: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(args)) {
        if (op.with && key === relations) request.query[relations] = value;
        else if (place[key] === 'params') request.params[key] = value;
        else if (place[key] === 'query') request.query[key] = value;
        else if (place[key] === 'body') body[key] = value;
        else if (key !== 'body' || !nestedBody) throw ValidationError.field(key, 'is not an argument of this tool');
      }
      if (paged && request.query.per_page === undefined) request.query.per_page = TOOL_PAGE_SIZE;
      if (listBody) request.body = body[listBody.wire];
      else if (!nestedBody && (compiled.bodyVariable || Object.keys(body).length)) request.body = body;
      await admission?.weigh(operationWeight(op, false));
      return (await runOperation(schema, compiled, ctx, request)).body;
    },
  };
}

/**
 * Whether a call of the tool may change stored records: a write tool not marked `storesNothing`. The
 * chat assistant runs such calls again to write a preview (src/assistant/).
 */
export const mayStore = (entry: Pick<ToolEntry, 'readOnly' | 'storesNothing'> | undefined): boolean => !!entry && !entry.readOnly && !entry.storesNothing;

/** graphql_query / graphql_mutation: a document and its variables, run as on /graphql (the same limits first). */
function graphqlTool(schema: GraphQLSchema, kind: 'query' | 'mutation', limits: QueryLimits): ToolEntry {
  const readOnly = kind === 'query';
  return {
    module: 'graphql',
    readOnly,
    errorShape: 'graphql',
    tool: {
      name: `graphql_${kind}`,
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
      outputSchema: {
        type: 'object',
        properties: { data: { type: ['object', 'null'] }, errors: { type: 'array', items: { type: 'object' } } },
      },
      annotations: readOnly ? READ_ONLY : { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async call(ctx, args, admission) {
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
      const { errors: refused, cost } = checkQuery(schema, document, limits, { variables: variables as Record<string, unknown>, operationName });
      // every limit the query exceeds, as /graphql names them
      if (refused.length) throw new AggregateError(refused, refused[0].message);
      const errors = validate(schema, document);
      if (errors.length) throw new ValidationError(errors.map((e) => e.message).join('; '));
      const operation = getOperationAST(document, operationName);
      if (!operation) throw ValidationError.field('operationName', 'must name one operation of the document');
      if (operation.operation !== kind) throw ValidationError.field('query', `is a ${operation.operation}; this tool runs a ${kind}`);
      if (admission) await admission.weigh(queryWeight(cost, admission.heavyCost));
      const result = await execute({ schema, document, operationName, variableValues: variables as Record<string, unknown>, contextValue: ctx });
      return { ...(result.data !== undefined ? { data: result.data } : {}), ...(result.errors?.length ? { errors: result.errors.map((e) => shownError(ctx, e)) } : {}) };
    },
  };
}

/**
 * A GraphQL error as /graphql shows it: the client's own errors in full with their code (graphqlErrorCode)
 * and the extensions GraphQL made (a query limit's `limit`), unexpected ones masked.
 */
function shownError(ctx: RequestContext, e: GraphQLError) {
  const wire = toWireError(e);
  if (wire.status >= 500) ctx.logger.error({ err: e.originalError ?? e, requestId: ctx.requestId }, 'unexpected error in an MCP GraphQL tool');
  const { http: _http, ...own } = (e.originalError || wire.status >= 500 ? {} : e.extensions) as Record<string, unknown>;
  return { message: wire.status >= 500 ? 'Unexpected error.' : boundedMessage(e.message), ...(e.path ? { path: e.path } : {}), extensions: { ...own, code: wire.code, ...wire.extensions } };
}

/**
 * A tool's failure as a tool reports it, in the tool's error shape: the REST error body, or for the
 * GraphQL tools /graphql's `{errors}` (unexpected errors masked and logged).
 */
export function toolErrorBody(ctx: RequestContext, e: unknown, shape: ToolEntry['errorShape'] = 'simple'): unknown {
  // an AggregateError: every query limit a GraphQL tool's document exceeds
  const errors: unknown[] = e instanceof AggregateError ? e.errors : [e];
  if (shape === 'graphql' && errors.every((x) => x instanceof GraphQLError)) return { errors: errors.map((x) => shownError(ctx, x as GraphQLError)) };
  const wire = toWireError(errors[0]);
  if (wire.status >= 500 && wire.status !== 503) ctx.logger.error({ err: e, requestId: ctx.requestId }, 'unexpected error in a tool'); // 503: load shed, expected
  return errorBody(wire, shape, ctx.requestId);
}


/**
 * Whether a mutation field is destructive, from the operation table: a field some destructive
 * operation runs is; a field only other operations run is not; a field no operation runs is judged
 * as the `graphql_mutation` tool that reaches it is annotated, destructive.
 */
export function destructiveMutationField(schema: GraphQLSchema): (field: string) => boolean {
  let known = destructiveFields.get(schema);
  if (!known) {
    known = new Map();
    for (const c of compiledOperations(schema)) {
      if (!c.isMutation) continue;
      const top = c.operation.selectionSet.selections[0];
      if (top.kind !== Kind.FIELD) continue;
      known.set(top.name.value, (known.get(top.name.value) ?? false) || isDestructive(c.op));
    }
    destructiveFields.set(schema, known);
  }
  const map = known;
  return (field) => map.get(field) ?? true;
}
const destructiveFields = new WeakMap<GraphQLSchema, Map<string, boolean>>();

export interface Toolbox {
  tools: readonly ToolEntry[];
  byName: ReadonlyMap<string, ToolEntry>;
  modules: readonly string[];
}

const toolboxes = new WeakMap<GraphQLSchema, Map<string, Toolbox>>();

/** Every tool of the schema's operation table plus the two GraphQL tools (built once per schema and limits). */
export function toolbox(schema: GraphQLSchema, limits: QueryLimits = DEFAULT_QUERY_LIMITS): Toolbox {
  let bySchema = toolboxes.get(schema);
  if (!bySchema) toolboxes.set(schema, (bySchema = new Map()));
  const key = JSON.stringify(limits);
  let box = bySchema.get(key);
  if (!box) {
    const tools = [...compiledOperations(schema).map((c) => operationTool(schema, c)), graphqlTool(schema, 'query', limits), graphqlTool(schema, 'mutation', limits)];
    box = { tools, byName: new Map(tools.map((t) => [t.tool.name, t])), modules: [...new Set(tools.map((t) => t.module))] };
    bySchema.set(key, box);
  }
  return box;
}
