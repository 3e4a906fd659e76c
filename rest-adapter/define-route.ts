import type { QueryReader } from './params.ts';
import type { ErrorShape } from './errors.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteInput {
  params: Record<string, string>;
  query: QueryReader;
  body: unknown;
}

/**
 * One documented REST path: a static GraphQL document executed in-process on the same schema and
 * context as /graphql, plus how the request maps to its variables and the result to the response.
 */
export interface RouteDefinition {
  method: HttpMethod;
  /** express path, relative to /api/v2, e.g. /items/:id */
  path: string;
  /** GraphQL document with exactly one operation */
  document: string;
  variables(input: RouteInput): Record<string, unknown>;
  /** top-level field of the operation whose value is the response body */
  result: string;
  /** success status (200 unless given) */
  status?: number;
  errorShape?: ErrorShape;
  /**
   * Relations a client may embed with `with=a,b.c`: each becomes a boolean variable `with_a`,
   * `with_b_c` used by `@include(if: …)`; naming `b.c` includes `b` too. `default` applies when the
   * request has no `with` parameter.
   */
  with?: { allowed: readonly string[]; default?: readonly string[] };
}

export const defineRoute = (route: RouteDefinition): RouteDefinition => route;

/** The variable a `with` relation turns into: entries.item -> with_entries_item */
export const withVariable = (relation: string): string => `with_${relation.replace(/\./g, '_')}`;
