import type { Response } from 'express';
import { GraphQLError } from 'graphql';
import { AppError, type FieldIssue } from '../src/shared/errors.ts';
import { fromPrismaError } from '../src/shared/graphql-errors.ts';
import { toSnake } from '../src/shared/naming.ts';

/**
 * The spec's error shapes for /api/v2 (the OAuth shape lives with the OAuth endpoints):
 *   simple   {error: <text>, status: <integer>}                      most endpoints
 *   envelope {error: {code, message, request_id}}                    reports, voucher delete
 */
export type ErrorShape = 'simple' | 'envelope';

export interface WireError {
  status: number;
  code: string;
  message: string;
}

/** REST names fields in snake_case: "itemNo: too long" becomes "item_no: too long". */
function restMessage(message: string, issues: FieldIssue[]): string {
  if (!issues.length) return message;
  return issues
    .map((i) => (i.path.length ? `${i.path.map((p) => (/^\d+$/.test(p) ? p : toSnake(p))).join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/** An error from a service, a GraphQL result or the adapter itself, as status + code + text. */
export function toWireError(err: unknown): WireError {
  const raw = err instanceof GraphQLError && err.originalError ? err.originalError : err;
  const original = raw instanceof AppError ? raw : (fromPrismaError(raw) ?? raw);
  if (original instanceof AppError) {
    return { status: original.status, code: original.code, message: restMessage(original.message, original.issues) };
  }
  if (err instanceof GraphQLError) {
    const ext = err.extensions as { code?: string; http?: { status?: number }; issues?: FieldIssue[] };
    if (ext?.http?.status && ext.http.status < 500) {
      return { status: ext.http.status, code: ext.code ?? 'common.error', message: restMessage(err.message, ext.issues ?? []) };
    }
  }
  return { status: 500, code: 'common.internal_error', message: 'Internal server error' };
}

export function sendError(res: Response, err: WireError, shape: ErrorShape, requestId: string): void {
  if (err.code === 'insufficient_scope') {
    res.setHeader('WWW-Authenticate', 'Bearer error="insufficient_scope", error_description="The token lacks the write scope"');
  }
  const body =
    shape === 'envelope'
      ? { error: { code: err.code, message: err.message, request_id: requestId } }
      : { error: err.message, status: err.status };
  res.status(err.status).json(body);
}

