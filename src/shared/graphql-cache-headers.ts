import type { DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { RequestContext } from './context.ts';
import { everyRootField } from './graphql-errors.ts';

/** how long a shared cache (a CDN) may keep an anonymous introspection answer to a GET */
export const PUBLIC_SCHEMA_MAX_AGE = 300;

/** Does the operation, a query, select only introspection (`__schema`, `__type`, `__typename`)? */
export const introspectionOnly = (document: DocumentNode, operationName: string | null | undefined): boolean =>
  everyRootField(document, operationName, (field, op) => op.operation === 'query' && field.startsWith('__'));

/**
 * Cache headers of the answers to GET /graphql (queries, also by persisted hash), set as yoga
 * answers; POST answers are not cacheable anyway and get none.
 *
 * - with a token, no error: `Cache-Control: private, no-cache` and `Vary: Authorization`. A browser
 *   may keep it but asks again before using it (books change under it: a stale balance after a
 *   posting would be wrong); no shared cache may keep it.
 * - without a token, introspection only, no error: `public, max-age=300` (the schema is public and
 *   changes only with a deploy): a CDN may serve it.
 * - anything else (an error, an unknown persisted hash, a mutation refused with 405, the public
 *   fields without a token, whose URL names an invitation's token): `no-store`, so neither a CDN nor
 *   a browser keeps a 404 of a hash the client is about to register.
 */
export function graphqlCacheHeaders(): Plugin<RequestContext> {
  /** by the fetch Request: what an answer without errors may be */
  const cacheable = new WeakMap<object, 'public' | 'private'>();
  return {
    onExecute({ args }) {
      const ctx = args.contextValue as RequestContext & { request?: Request };
      const request = ctx.request;
      if (!request || request.method !== 'GET') return;
      const kind = ctx.actor.tokenKind !== 'anonymous' ? 'private' : introspectionOnly(args.document, args.operationName) ? 'public' : undefined;
      if (!kind) return;
      return {
        onExecuteDone({ result }) {
          if (!(Symbol.asyncIterator in result) && !result.errors?.length) cacheable.set(request, kind);
        },
      };
    },
    onResponse({ request, response }) {
      if (request.method !== 'GET' || !/json/.test(response.headers.get('content-type') ?? '')) return; // not the GraphiQL page
      const kind = response.status === 200 ? cacheable.get(request) : undefined;
      response.headers.set('Cache-Control', kind === 'public' ? `public, max-age=${PUBLIC_SCHEMA_MAX_AGE}` : kind === 'private' ? 'private, no-cache' : 'no-store');
      response.headers.append('Vary', 'Authorization');
    },
  };
}
