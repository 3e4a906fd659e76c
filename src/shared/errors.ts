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

export class AppError extends Error {
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
  constructor(message = 'Authentication required') {
    super(message, 401, 'common.unauthenticated');
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

export class ConflictError extends AppError {
  constructor(message: string) {
    super(message, 409, 'common.conflict');
  }
}

export class RateLimitedError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super('Too many requests', 429, 'common.rate_limited');
  }
}
