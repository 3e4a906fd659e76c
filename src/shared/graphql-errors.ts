import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { AppError, ConflictError, InsufficientScopeError, NotFoundError, ValidationError } from './errors.ts';

/** Prisma's known request errors that bad input can cause, as AppErrors. */
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
    default:
      return null;
  }
}

/** Status (and, for a missing scope, the RFC 6750 challenge) yoga puts on the HTTP response. */
function httpOf(app: AppError): { status: number; headers?: Record<string, string> } {
  if (app instanceof InsufficientScopeError) {
    return {
      status: app.status,
      headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${app.requiredScope}", error_description="The token lacks the ${app.requiredScope} scope"` },
    };
  }
  return { status: app.status };
}

/**
 * What /graphql shows of an error: AppErrors (and Prisma input errors) with extensions.code and
 * extensions.http.status; GraphQL's own validation errors unchanged; anything else masked and logged.
 */
export function maskError(error: unknown, message: string, logger: Logger): Error {
  if (error instanceof GraphQLError) {
    const original = error.originalError;
    const app = original instanceof AppError ? original : fromPrismaError(original);
    if (app) {
      return new GraphQLError(app.message, {
        nodes: error.nodes,
        source: error.source,
        positions: error.positions,
        path: error.path,
        originalError: app,
        extensions: { code: app.code, http: httpOf(app), ...(app.issues.length ? { issues: app.issues } : {}) },
      });
    }
    if (!original || original instanceof GraphQLError) return error; // parse/validation/coercion errors
  }
  logger.error({ err: error }, 'unexpected GraphQL error');
  return new GraphQLError(message, { extensions: { code: 'INTERNAL_SERVER_ERROR', http: { status: 500 } } });
}
