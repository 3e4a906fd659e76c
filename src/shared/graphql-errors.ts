import { getOperationAST, GraphQLError, Kind, type DocumentNode, type ExecutionResult, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { RequestContext } from './context.ts';
import { guardDocument, guardInput } from '../http/input-guard.ts';
import type { Logger } from 'pino';
import { AppError, boundedIssues, boundedMessage, ConflictError, NotFoundError, ServiceUnavailableError, UnauthenticatedError, ValidationError } from './errors.ts';

/** Prisma's known request errors that bad input (or a busy database) can cause, as AppErrors. */
export function fromPrismaError(e: unknown): AppError | null {
  const code = (e as { code?: unknown })?.code;
  if (typeof code !== 'string' || !/^P2\d{3}$/.test(code)) return null;
  const meta = (e as { meta?: { target?: unknown; column_name?: string; field_name?: string } }).meta ?? {};
  switch (code) {
    case 'P2000':
      return new ValidationError(`A value is too long${meta.column_name ? ` for ${meta.column_name}` : ''}`);
    case 'P2002':
      return new ConflictError(`A record with the same ${Array.isArray(meta.target) ? meta.target.join(', ') : 'unique value'} already exists`);
    case 'P2003':
      return new ValidationError(`A referenced record does not exist${meta.field_name ? ` (${meta.field_name})` : ''}`);
    case 'P2025':
      return new NotFoundError('Record');
    case 'P2028':
      // an interactive transaction that could not start (every connection, or PGlite's one, busy
      // past TRANSACTION_OPTIONS.maxWait, src/db/database.ts) or ran past its time: Prisma rolled it back, nothing is written
      return new ServiceUnavailableError('The database is busy: the change could not be made in time and nothing was written; retry after 1 s', 1);
    case 'P2029':
      // a list argument of tens of thousands of values became more bind parameters than the database takes
      return new ValidationError('The request holds too many values for one query (a list of tens of thousands of ids or values): send fewer');
    default:
      return null;
  }
}

/**
 * The project's error codes are lower case (`common.validation_error`, `insufficient_scope`, …);
 * graphql-js gives its own errors none and yoga and envelop give theirs Apollo's upper-case ones
 * (GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, OPERATION_RESOLUTION_FAILURE, BAD_REQUEST).
 */
const PROJECT_CODE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;

/**
 * Codes a client protocol reads, kept as the protocol spells them: an unknown persisted hash
 * (`PersistedQueryNotFound`, src/shared/persisted-operations.ts) is how Apollo Client's and urql's
 * APQ links know to send the document.
 */
const PROTOCOL_CODES = new Set(['PERSISTED_QUERY_NOT_FOUND']);

/** The code of a client error yoga answers with this HTTP status (the REST codes of the same statuses). */
const CODE_BY_STATUS: Record<number, string> = {
  404: 'common.not_found',
  405: 'common.method_not_allowed',
  406: 'common.not_acceptable',
  413: 'common.content_too_large',
  415: 'common.unsupported_media_type',
};

/**
 * The `extensions.code` of a GraphQL error, in the project's naming, for every error whatever made it:
 * an error of ours keeps its code; anything unexpected is `common.internal_error` (as on REST); every
 * other one is the client's request — a syntax error, a validation error (unknown field, wrong literal,
 * undefined variable), a variable's value that cannot be coerced or is missing, an operation name the
 * document lacks, a subscription, a malformed body — `common.validation_error`, or by its HTTP status
 * (a mutation over GET: 405 `common.method_not_allowed`).
 */
export function graphqlErrorCode(error: GraphQLError): string {
  const ext = error.extensions as { code?: unknown; unexpected?: unknown; http?: { status?: number } } | undefined;
  if (typeof ext?.code === 'string' && (PROJECT_CODE.test(ext.code) || PROTOCOL_CODES.has(ext.code))) return ext.code;
  const status = ext?.http?.status;
  if (ext?.code === 'INTERNAL_SERVER_ERROR' || ext?.unexpected || (status !== undefined && status >= 500)) return 'common.internal_error';
  if (status !== undefined && CODE_BY_STATUS[status]) return CODE_BY_STATUS[status];
  return status === undefined || status === 400 || status === 200 ? 'common.validation_error' : 'common.bad_request';
}

/** The error with `extensions.code` in the project's naming (itself when it has one already). */
function withProjectCode(error: GraphQLError): GraphQLError {
  const code = graphqlErrorCode(error);
  if (error.extensions?.code === code) return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, code },
  });
}

/**
 * Every error /graphql answers carries `extensions.code` in the project's naming (`graphqlErrorCode`):
 * applied to the result as it is about to be written, so the errors yoga makes itself (parsing the
 * request, validation, operation resolution), graphql-js's variable coercion errors and ours all
 * pass here. Only the code changes: the HTTP status yoga gives each (GraphQL over HTTP) stays.
 */
export const graphqlErrorCodes: Plugin<RequestContext> = {
  onResultProcess({ result, setResult }) {
    const fix = (r: unknown): unknown => {
      const errors = (r as { errors?: readonly unknown[] } | null)?.errors;
      if (!Array.isArray(errors) || !errors.length) return r;
      return { ...(r as object), errors: errors.map((e) => (e instanceof GraphQLError ? withProjectCode(e) : e)) };
    };
    if (Array.isArray(result)) setResult(result.map(fix) as never);
    else if (result && typeof result === 'object' && !(Symbol.asyncIterator in result)) setResult(fix(result) as never);
  },
};

/** Status and headers (WWW-Authenticate, Retry-After) yoga puts on the HTTP response. */
function httpOf(app: AppError): { status: number; headers?: Record<string, string> } {
  return Object.keys(app.headers).length ? { status: app.status, headers: app.headers } : { status: app.status };
}

/**
 * Does every root field the operation selects (through fragments and inline fragments) pass `test`?
 * False when the document names no operation yoga would run, or a subscription.
 */
export function everyRootField(
  document: DocumentNode,
  operationName: string | null | undefined,
  test: (field: string, operation: OperationDefinitionNode) => boolean,
): boolean {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const op = getOperationAST(document, operationName);
  if (!op || op.operation === 'subscription') return false;
  const seen = new Set<string>();
  const only = (set: SelectionSetNode): boolean =>
    set.selections.every((s) => {
      if (s.kind === Kind.FIELD) return test(s.name.value, op);
      if (s.kind === Kind.INLINE_FRAGMENT) return only(s.selectionSet);
      if (seen.has(s.name.value)) return true;
      seen.add(s.name.value);
      const f = fragments.get(s.name.value);
      return !!f && only(f.selectionSet);
    });
  return only(op.selectionSet);
}

/**
 * Does the operation select only fields anyone may use: introspection (__schema, __type, __typename)
 * and the root fields marked public (`publicField` in src/builder.ts)?
 */
export function anonymousAllowed(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): boolean {
  return everyRootField(
    document,
    operationName,
    (field, op) => (op.operation === 'query' && field.startsWith('__')) || schema.getRootType(op.operation)?.getFields()[field]?.extensions.publicField === true,
  );
}

/**
 * The edge guard (src/http/input-guard.ts) for what yoga parses itself: a NUL or too-deep nesting
 * in the document, variables or extensions is a 400 naming where, before anything executes.
 */
export const guardGraphqlInput: Plugin<RequestContext> = {
  onParams({ params }) {
    try {
      guardInput({ query: params.query, variables: params.variables, extensions: params.extensions });
      guardDocument(params.query);
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      throw new GraphQLError(e.message, { originalError: e, extensions: { code: e.code, http: { status: e.status } } });
    }
  },
};

/** A GraphQL error of graphql-js (which quotes the value it refuses in full) with its message bounded. */
function bounded(error: GraphQLError): GraphQLError {
  const message = boundedMessage(error.message);
  if (message === error.message) return error;
  return new GraphQLError(message, { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, originalError: error.originalError, extensions: error.extensions });
}

/**
 * Validation errors are answered as they are, without maskError: their messages (a literal of the
 * wrong type is quoted whole) are bounded here.
 */
export const boundValidationErrors: Plugin<RequestContext> = {
  onValidate() {
    return ({ result, setResult }) => {
      if (result.some((e) => e.message.length > 200)) setResult(result.map((e) => (e instanceof GraphQLError ? bounded(e) : e)));
    };
  },
};

/**
 * /graphql without a token: the schema is public (schema.graphql ships in the repository), so
 * introspection runs and GraphiQL's docs load before sign-in, and so do the public fields (an
 * invitation by its token, accepting it); every other operation is answered 401 as a GraphQL
 * response, with the bearer challenge.
 */
export function requireToken(challenge: string): Plugin<RequestContext> {
  const refused = (args: { contextValue: unknown; schema: GraphQLSchema; document: DocumentNode; operationName?: string | null }): ExecutionResult | undefined => {
    const ctx = args.contextValue as RequestContext;
    if (ctx.actor.tokenKind !== 'anonymous' || anonymousAllowed(args.schema, args.document, args.operationName)) return undefined;
    const error = new UnauthenticatedError('A valid bearer token is required', challenge);
    return { errors: [new GraphQLError(error.message, { originalError: error, extensions: { code: error.code, http: httpOf(error) } })] };
  };
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const result = refused(args);
      if (result) setResultAndStopExecution(result);
    },
    // a subscription (never anonymous) is refused the same way, before its stream starts
    onSubscribe({ args, setResultAndStopExecution }) {
      const result = refused(args);
      if (result) setResultAndStopExecution(result);
    },
  };
}

/**
 * What /graphql shows of an error: AppErrors (and Prisma input errors) with extensions.code and
 * extensions.http.status; GraphQL's own validation errors unchanged; anything else masked and logged.
 */
export function maskError(error: unknown, message: string, logger: Logger): Error {
  if (error instanceof GraphQLError) {
    const original = error.originalError;
    const app = original instanceof AppError ? original : fromPrismaError(original);
    const at = { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path };
    if (app) {
      return new GraphQLError(boundedMessage(app.message), {
        ...at,
        originalError: app,
        extensions: { code: app.code, http: httpOf(app), ...app.extensions, ...(app.issues.length ? { issues: boundedIssues(app.issues) } : {}) },
      });
    }
    if (!original || original instanceof GraphQLError) return bounded(error); // parse/validation/coercion errors
  }
  logger.error({ err: error }, 'unexpected GraphQL error');
  return new GraphQLError(message, { extensions: { code: 'common.internal_error', http: { status: 500 } } });
}

/**
 * Partial data is a success (GraphQL over HTTP): when a response carries `data`, its errors — a
 * missing or forbidden record at a nullable lookup, located at its path and coded — leave the HTTP
 * status 200; the rest of the response is kept. Without data the errors' own status stays (401,
 * 403, 404 …). Their headers (a bearer challenge) are kept either way.
 */
export const partialDataStatus: Plugin<RequestContext> = {
  onResultProcess({ result, setResult }) {
    if (Array.isArray(result) || !result || typeof result !== 'object' || !('errors' in result)) return;
    const r = result as ExecutionResult;
    if (r.data == null || !r.errors?.length) return;
    setResult({
      ...r,
      errors: r.errors.map((e) => {
        const { http, ...extensions } = (e.extensions ?? {}) as { http?: { headers?: Record<string, string> } };
        if (!http) return e;
        const kept = http.headers ? { ...extensions, http: { headers: http.headers } } : extensions;
        return new GraphQLError(e.message, { nodes: e.nodes, source: e.source, positions: e.positions, path: e.path, originalError: e.originalError, extensions: kept });
      }),
    });
  },
};
