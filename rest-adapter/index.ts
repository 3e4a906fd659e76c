import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { execute, getArgumentValues, getVariableValues, Kind, type FieldNode, type GraphQLSchema } from 'graphql';
import type { RequestContext } from '../src/shared/context.ts';
import { InsufficientScopeError, MethodNotAllowedError, NoSuchEndpointError, NotAcceptableError } from '../src/shared/errors.ts';
import { compileOperation, type CompiledOperation } from './compile.ts';
import { operationPaths, operationWeight, type Operation, type RenderedFile, type Representations } from './operation.ts';
import { operationVariables, type OperationRequest } from './variables.ts';
import { isFormRequest } from './multipart.ts';
import { jsonText, withJsonNumbers } from '../src/shared/json-text.ts';
import { weigh } from '../src/http/admission.ts';
import { withWireSpelling } from './wire-enums.ts';
import { fileOperations } from './routes/files.ts';
import { itemOperations } from './routes/items.ts';
import { unitOperations } from './routes/units.ts';
import { itemCollectionOperations } from './routes/item-collections.ts';
import { projectOperations } from './routes/projects.ts';
import { departmentOperations } from './routes/departments.ts';
import { journalEntryOperations } from './routes/journal-entries.ts';
import { saftImportOperations } from './routes/saft-imports.ts';
import { reconciliationOperations } from './routes/reconciliations.ts';
import { bankTransactionOperations } from './routes/bank-transactions.ts';
import { reportOperations } from './routes/reports.ts';
import { documentOperations } from './routes/documents.ts';
import { voucherOperations } from './routes/vouchers.ts';
import { voucherCollectionOperations } from './routes/voucher-collections.ts';
import { invitationOperations } from './routes/invitations.ts';
import { workerTaskOperations } from './routes/worker-tasks.ts';
import { notificationSettingOperations } from './routes/notification-settings.ts';
import { taskOperations } from './routes/tasks.ts';
import { webhookOperations } from './routes/webhooks.ts';
import { chatOperations } from './routes/chat.ts';
import { portalIntegrationOperations } from './routes/portal-integrations.ts';
import { bankIntegrationOperations } from './routes/bank-integrations.ts';
import { yearlyAccountOperations } from './routes/yearly-accounts.ts';
import { taxReturnOperations } from './routes/tax-returns.ts';
import { payrollGarnishmentOperations } from './routes/payroll-garnishments.ts';
import { payrollContractOperations } from './routes/payroll-contracts.ts';
import { equityOperations } from './routes/equity.ts';
import { changeOperations } from './routes/changes.ts';

/** The operation table: every documented REST path, one entry each (also the MCP tools and OpenAPI paths). */
export const operations: readonly Operation[] = [
  ...itemOperations,
  ...unitOperations,
  ...itemCollectionOperations,
  ...projectOperations,
  ...departmentOperations,
  ...journalEntryOperations,
  ...saftImportOperations,
  ...reconciliationOperations,
  ...bankTransactionOperations,
  ...reportOperations,
  ...fileOperations,
  ...documentOperations,
  ...voucherOperations,
  ...voucherCollectionOperations,
  ...invitationOperations,
  ...workerTaskOperations,
  ...notificationSettingOperations,
  ...taskOperations,
  ...webhookOperations,
  ...chatOperations,
  ...portalIntegrationOperations,
  ...bankIntegrationOperations,
  ...yearlyAccountOperations,
  ...taxReturnOperations,
  ...payrollGarnishmentOperations,
  ...payrollContractOperations,
  ...equityOperations,
  ...changeOperations,
];

const compiledBySchema = new WeakMap<GraphQLSchema, Map<Operation, CompiledOperation>>();

/**
 * An operation compiled against the schema, once: on its first request, or when the MCP tools or the
 * OpenAPI document read the whole table (compiling all of it at boot took a quarter of a second of
 * every start; test/rest-adapter compiles every entry, so a document that does not fit fails a test).
 */
export function compiledOperation(schema: GraphQLSchema, op: Operation): CompiledOperation {
  let bySchema = compiledBySchema.get(schema);
  if (!bySchema) compiledBySchema.set(schema, (bySchema = new Map()));
  let compiled = bySchema.get(op);
  if (!compiled) bySchema.set(op, (compiled = compileOperation(schema, op)));
  return compiled;
}

/** The table compiled against the schema (each operation once). */
export function compiledOperations(schema: GraphQLSchema, table: readonly Operation[] = operations): CompiledOperation[] {
  return table.map((op) => compiledOperation(schema, op));
}

export interface OperationResult {
  status: number;
  body: unknown;
}

/**
 * The arguments the operation's single top-level field was called with, as its resolver got them
 * (variables coerced: dates as Date): what a file rendering passes to the field's service.
 */
function fieldArguments(schema: GraphQLSchema, compiled: CompiledOperation, variableValues: Record<string, unknown>): Record<string, unknown> {
  const coerced = getVariableValues(schema, compiled.operation.variableDefinitions ?? [], variableValues);
  if (coerced.errors) throw coerced.errors[0];
  const root = compiled.isMutation ? schema.getMutationType()! : schema.getQueryType()!;
  const node = compiled.operation.selectionSet.selections.find((s): s is FieldNode => s.kind === Kind.FIELD)!;
  return getArgumentValues(root.getFields()[node.name.value], node, coerced.coerced);
}

/**
 * Runs one operation for one request, whatever the entry point (REST route, MCP tool): a POST, PUT,
 * PATCH or DELETE needs `write` (before its input is even read); variables are derived and checked;
 * the document executes on the same schema and context as /graphql. Errors are thrown for the entry
 * point's renderer.
 */
export async function runOperation(schema: GraphQLSchema, compiled: CompiledOperation, ctx: RequestContext, request: OperationRequest): Promise<OperationResult> {
  // a public operation needs no token on REST (its fields skip the scopes too); its MCP tool is refused by the tool endpoint
  if (compiled.needsWrite && !compiled.op.public && !ctx.actor.scopes.has('write')) throw new InsufficientScopeError('write');
  const variableValues = operationVariables(compiled, request);
  const result = await execute({ schema, document: compiled.document, variableValues, contextValue: ctx });
  if (result.errors?.length) throw result.errors[0];
  const value = (result.data as Record<string, unknown>)[compiled.resultKey];
  const status = compiled.op.status ?? 200;
  // 204 No Content: no body on the wire (an MCP tool answers {})
  if (status === 204) return { status, body: {} };
  const empty = compiled.op.emptyBody === 'always' || (compiled.op.emptyBody === 'whenNull' && value === null);
  if (empty) return { status, body: {} };
  const spelledWhole = compiled.wireSpelled.length ? withWireSpelling(value, compiled.wireSpelled) : value;
  const spelled = compiled.nodesOnly ? (spelledWhole as { nodes: unknown[] }).nodes : spelledWhole;
  const shown = compiled.op.omitWhenNull ? withoutNulls(spelled, compiled.op.omitWhenNull) : spelled;
  return { status, body: compiled.op.numbers ? withJsonNumbers(shown, compiled.op.numbers) : shown };
}

/**
 * A JSON answer on the wire: every operation's body (and a file rendering's JSON answer) is written
 * here, its numbers (`Operation.numbers`) as exact literals.
 */
function sendJson(res: Response, status: number, body: unknown): void {
  res.status(status).type('application/json').send(jsonText(body));
}

/** The result with the keys an operation leaves out when null removed (from each element of a list). */
function withoutNulls(value: unknown, keys: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutNulls(v, keys));
  if (!value || typeof value !== 'object') return value;
  // an envelope {data: [...]} (a bulk posting's answer): its rows
  const data = (value as { data?: unknown }).data;
  if (Array.isArray(data)) return { ...value, data: data.map((v) => withoutNulls(v, keys)) };
  return Object.fromEntries(Object.entries(value).filter(([k, v]) => !(v === null && keys.includes(k))));
}

/**
 * Mounted before the bearer middleware and the body parser: an operation whose errors use the v2
 * envelope gets that shape for their errors too (401, malformed JSON), not only for its own. Paths
 * are matched as sent, without decoding their parameters, so a parameter that is no valid
 * percent-encoding (DELETE /vouchers/%) still gets the route's shape for its 400.
 */
export function errorShapeRouter(table: readonly Operation[] = operations): Router {
  const shaped = table
    .filter((op) => !op.public && op.errorShape && op.errorShape !== 'simple')
    .flatMap((op) =>
      operationPaths(op).map((path) => ({
        method: op.method,
        shape: op.errorShape,
        pattern: new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+')}/?$`, 'i'),
      })),
    );
  const router = express.Router();
  router.use((req: Request, res: Response, next: NextFunction) => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const match = shaped.find((s) => s.method === method && s.pattern.test(req.path));
    if (match) res.locals.errorShape = match.shape;
    next();
  });
  return router;
}

const JSON_TYPE = 'application/json';

/** The media type of the answer by the Accept header (express's negotiation, q-values honoured), or 406. */
function negotiate(req: Request, representations: Representations): string {
  const offered = [...(representations.json === false ? [] : [JSON_TYPE]), ...Object.keys(representations.files)];
  const chosen = req.accepts(offered);
  if (chosen) return chosen;
  throw new NotAcceptableError(`Accept '${String(req.headers.accept).slice(0, 100)}' names no media type this operation offers; it offers ${offered.join(', ')}`);
}

/** The query a representation reads: the file-only parameters dropped for JSON, defaulted for files. */
function queryFor(representations: Representations, mediaType: string, query: Record<string, unknown>): Record<string, unknown> {
  const fileParameters = representations.fileParameters ?? {};
  const out = { ...query };
  for (const [name, fallback] of Object.entries(fileParameters)) {
    if (mediaType === JSON_TYPE) delete out[name];
    else if ((out[name] === undefined || out[name] === '') && fallback !== undefined) out[name] = fallback;
  }
  return out;
}

/** A file on the wire: its type, its name (attachment, or inline for a page), then its bytes or stream. */
async function sendFile(ctx: RequestContext, res: Response, file: RenderedFile): Promise<void> {
  res.status(file.status ?? 200);
  res.setHeader('Content-Type', file.contentType);
  res.setHeader('Vary', 'Accept');
  for (const [name, value] of Object.entries(file.headers ?? {})) res.setHeader(name, value);
  if (file.fileName) {
    const ascii = file.fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
    const disposition = file.contentType.startsWith('text/html') ? 'inline' : 'attachment';
    res.setHeader('Content-Disposition', `${disposition}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.fileName)}`);
  }
  if (typeof file.body !== 'function') {
    res.end(file.body);
    return;
  }
  try {
    await file.body(res);
    res.end();
  } catch (e) {
    // the status is on the wire already: cut the connection so the client sees an incomplete file
    ctx.logger.error({ err: e }, 'streaming a file failed after its headers were sent');
    res.destroy();
  }
}

/**
 * express.Router serving the table's operations under /api/v2 (the bearer middleware runs before
 * it), or with `public` its public ones under /public/v2 (an anonymous context before it). Errors go
 * to the app's error renderer in the route's shape; unknown paths are 404, known paths with another
 * method 405 with Allow.
 */
export function createRestRouter(schema: GraphQLSchema, table: readonly Operation[] = operations, options: { public?: boolean } = {}): Router {
  const router = express.Router();
  const methodsByPath = new Map<string, string[]>();
  for (const op of table.filter((o) => !!o.public === !!options.public)) {
    for (const path of operationPaths(op)) methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), op.method]);
    router[op.method.toLowerCase() as 'get'](operationPaths(op), async (req: Request, res: Response, next: NextFunction) => {
      res.locals.errorShape = op.errorShape ?? 'simple';
      try {
        const compiled = compiledOperation(schema, op);
        res.locals.operation = compiled.toolName; // the metrics' label (src/observability/metrics.ts)
        const ctx = (req as Request & { ctx: RequestContext }).ctx;
        // the JSON parser reads an empty body as {}: a request without one says so in its headers
        const bodyless = req.headers['transfer-encoding'] === undefined && !Number(req.headers['content-length'] ?? 0);
        const representations = op.representations;
        const mediaType = representations ? negotiate(req, representations) : JSON_TYPE;
        const query = representations ? queryFor(representations, mediaType, req.query as Record<string, unknown>) : (req.query as Record<string, unknown>);
        const form = isFormRequest(req);
        // heavy work (a file rendered, an upload) holds more of its user's share in admission control
        await weigh(req, operationWeight(op, mediaType !== JSON_TYPE));
        const request = { params: req.params, query, body: bodyless && !form ? undefined : req.body, form };
        const { status, body } = await runOperation(schema, compiled, ctx, request);
        if (mediaType !== JSON_TYPE) {
          const args = fieldArguments(schema, compiled, operationVariables(compiled, request));
          const rendered = await representations!.files[mediaType]({ ctx, result: body, args, query: query as Record<string, string | undefined> });
          if ('json' in rendered) sendJson(res, rendered.status, rendered.json);
          else await sendFile(ctx, res, rendered);
        } else if (status === 204) res.status(204).end();
        else sendJson(res, status, body);
      } catch (e) {
        next(e);
      }
    });
  }
  for (const [path, methods] of methodsByPath) {
    router.all(path, (req: Request, _res: Response, next: NextFunction) => {
      next(new MethodNotAllowedError(`Method ${req.method} is not allowed on ${req.baseUrl}${req.path}; allowed: ${methods.join(', ')}`, methods));
    });
  }
  router.use((req: Request, _res: Response, next: NextFunction) => {
    next(new NoSuchEndpointError(req.method, `${req.baseUrl}${req.path}`));
  });
  return router;
}
