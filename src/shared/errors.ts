/**
 * One error model for every entry point. Services throw these; GraphQL shows them with
 * extensions.code and extensions.http.status, the REST adapter renders them in the route's shape.
 * Anything else that escapes is unexpected and is masked as 500.
 */
export interface FieldIssue {
  /** field path, camelCase as in GraphQL (the REST adapter snake_cases it) */
  path: string[];
  message: string;
}

/** The most of one value (a quoted string, an unbroken run of characters) an error message shows. */
const SHOWN = 100;
/** The most of a whole message. */
const MESSAGE_LIMIT = 2000;

const cut = (text: string, limit: number) => `${text.slice(0, limit)}…`;

/**
 * An error message as it may go on the wire: messages quote input back (graphql-js writes the whole
 * value: 'Value "xxx…" does not exist in …'; services name what they looked for: "User xxx… not
 * found"), so a quoted string or an unbroken run longer than 200 characters is cut to its first 100,
 * and the message to 2,000. Every renderer applies it, whatever raised the error.
 */
export function boundedMessage(message: string): string {
  if (message.length <= 200) return message;
  const shown = message
    .replace(/"((?:[^"\\]|\\.){200,}?)"/g, (_m, inner: string) => `"${cut(inner, SHOWN)}"`)
    .replace(/[^\s"]{201,}/g, (run) => cut(run, SHOWN));
  return shown.length > MESSAGE_LIMIT ? cut(shown, MESSAGE_LIMIT) : shown;
}

/** The most issues an error lists: a list of 100,000 bad ids has as many, and the first few say what is wrong. */
const MAX_ISSUES = 20;

/**
 * Field issues as they may go on the wire: the first 20, each with its message and every path
 * segment (a key is input too) bounded.
 */
export const boundedIssues = (issues: FieldIssue[]): FieldIssue[] =>
  issues.slice(0, MAX_ISSUES).map((issue) => ({
    path: issue.path.map((p) => (p.length > 200 ? cut(p, SHOWN) : p)),
    message: boundedMessage(issue.message),
  }));

export class AppError extends Error {
  /** response headers that belong to the error (WWW-Authenticate, Retry-After) */
  headers: Record<string, string> = {};
  /** more GraphQL `extensions` beside code (a 429's retryAfter) */
  extensions: Record<string, unknown> = {};
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly issues: FieldIssue[] = [],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  constructor(message: string, issues: FieldIssue[] = []) {
    super(message, 400, 'common.validation_error', issues);
  }
  /** One error for all issues of an input, each naming its field: "name: too long; lines.3.accountId: …". */
  static of(issues: FieldIssue[]): ValidationError {
    return new ValidationError(issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; '), issues);
  }
  static field(path: string | string[], message: string): ValidationError {
    return ValidationError.of([{ path: Array.isArray(path) ? path : [path], message }]);
  }
}

export class UnauthenticatedError extends AppError {
  /** `challenge`: the WWW-Authenticate value (src/http/error-renderer.ts builds it) */
  constructor(message = 'Authentication required', challenge?: string) {
    super(message, 401, 'common.unauthenticated');
    if (challenge) this.headers = { 'WWW-Authenticate': challenge };
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'You do not have access to this client account') {
    super(message, 403, 'common.forbidden');
  }
}

/** A valid token whose scopes do not allow the operation (e.g. a write without `write`). */
export class InsufficientScopeError extends AppError {
  constructor(readonly requiredScope: string) {
    super(`This operation requires the '${requiredScope}' scope`, 403, 'insufficient_scope');
    this.headers = {
      'WWW-Authenticate': bearerChallenge({ error: 'insufficient_scope', scope: requiredScope, description: `The token lacks the ${requiredScope} scope` }),
    };
  }
}

/**
 * A POST /mcp body that is no JSON-RPC message the server takes, answered as a JSON-RPC error with HTTP
 * 400: not JSON (`parse_error`, -32700) or not one JSON-RPC 2.0 message (`invalid_request`, -32600: a
 * batch array, an object without `jsonrpc: "2.0"` and `method`).
 */
export class JsonRpcRequestError extends AppError {
  constructor(message: string, kind: 'parse_error' | 'invalid_request') {
    super(message, 400, `jsonrpc.${kind}`);
  }
}

export class NotFoundError extends AppError {
  constructor(what: string) {
    super(`${what} not found`, 404, 'common.not_found');
  }
}

export class NotAcceptableError extends AppError {
  constructor(message = 'Not acceptable') {
    super(message, 406, 'common.not_acceptable');
  }
}

export type QueryLimitName = 'tokens' | 'nesting' | 'name_length' | 'depth' | 'aliases' | 'fields' | 'nested_list' | 'cost';

/** A GraphQL document over one of the limits of src/shared/query-limits.ts: refused before it runs. */
export class QueryTooComplexError extends AppError {
  constructor(
    message: string,
    readonly limit: { name: QueryLimitName; max: number; actual: number },
  ) {
    super(message, 400, 'common.query_too_complex');
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(message, 409, 'common.conflict');
  }
}

/** 410: what the request points at is gone for good (a change feed cursor older than the retention: re-sync). */
export class GoneError extends AppError {
  constructor(message: string, code = 'common.gone') {
    super(message, 410, code);
  }
}

/** The request is well-formed but cannot be processed as sent (e.g. an idempotency key reused for another request). */
export class UnprocessableError extends AppError {
  constructor(message: string, code = 'common.unprocessable') {
    super(message, 422, code);
  }
}

/** Over a rate limit: 429 with Retry-After, which GraphQL also shows as extensions.retryAfter (seconds). */
export class RateLimitedError extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    message = 'Too many requests',
  ) {
    super(message, 429, 'common.rate_limited');
    this.headers = { 'Retry-After': String(retryAfterSeconds) };
    this.extensions = { retryAfter: retryAfterSeconds };
  }
}

/** 503: the server is at capacity (src/http/admission.ts); the client should come back after Retry-After. */
export class ServiceUnavailableError extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    super(message, 503, 'common.unavailable');
    this.headers = { 'Retry-After': String(retryAfterSeconds) };
  }
}

/** 408: the request's body did not arrive in time (src/http/body-timeout.ts); the connection is closed after it. */
export class RequestTimeoutError extends AppError {
  constructor(message: string) {
    super(message, 408, 'common.request_timeout');
    this.headers = { Connection: 'close' };
  }
}

/** 405 for a known path with another method; `allow` lists the methods it has. */
export class MethodNotAllowedError extends AppError {
  constructor(message: string, allow: readonly string[]) {
    super(message, 405, 'common.method_not_allowed');
    this.headers = { Allow: allow.join(', ') };
  }
}

/** 404 for a path no route serves (shown bounded: a path is client input). */
export class NoSuchEndpointError extends AppError {
  constructor(method: string, path: string) {
    super(`No such endpoint: ${method} ${path.slice(0, 120)}`, 404, 'common.not_found');
  }
}

/**
 * The one builder of RFC 6750 `WWW-Authenticate: Bearer …` challenges (401 and insufficient scope),
 * with the RFC 9728 `resource_metadata` link where the caller knows it.
 */
export function bearerChallenge(p: { realm?: string; resourceMetadata?: string; error?: string; description?: string; scope?: string }): string {
  const params: [string, string | undefined][] = [
    ['realm', p.realm],
    ['resource_metadata', p.resourceMetadata],
    ['error', p.error],
    ['scope', p.scope],
    ['error_description', p.description],
  ];
  const parts = params.filter(([, v]) => v !== undefined).map(([k, v]) => `${k}="${v!.replace(/["\\]/g, '')}"`);
  return parts.length ? `Bearer ${parts.join(', ')}` : 'Bearer';
}

/** The request or the file it carries is larger than the operation takes (an upload over 25 MB). */
export class ContentTooLargeError extends AppError {
  constructor(message: string) {
    super(message, 413, 'common.content_too_large');
  }
}
