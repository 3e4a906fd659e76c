import { queryFromInfo } from '@pothos/plugin-prisma';
import type { ObjectRef } from '@pothos/core';
import type { GraphQLResolveInfo } from 'graphql';
import { builder } from '../builder.ts';
import type { RequestContext } from './context.ts';
import type { OffsetPage, Page } from './pagination.ts';

/** GraphQL side of page-based lists (the plain window and ordering rules are in pagination.ts). */
export const PageMeta = builder
  .objectRef<Page<unknown>['meta']>('PageMeta')
  .implement({
    description: 'Position of a page in a page-based list.',
    fields: (t) => ({
      page: t.exposeInt('page'),
      perPage: t.exposeInt('perPage'),
      records: t.exposeInt('records', { description: 'Total number of matching records' }),
      pages: t.int({ description: 'Number of pages (0 when nothing matches)', resolve: (m) => Math.ceil(m.records / m.perPage) }),
    }),
  });

/**
 * A page type `<Name>Page { nodes, meta }` over a list service's Page. The list field passes
 * `nodesQuery(ctx, info)` to the service: the Prisma include of what the query selects under
 * `nodes`, so relations below it load in one batched query per level whatever the page size.
 */
export function pageType<T>(name: string, node: ObjectRef<any, T>) {
  return builder.objectRef<Page<T>>(name).implement({
    fields: (t) => ({
      nodes: t.field({ type: [node], resolve: (page) => page.nodes }),
      meta: t.field({ type: PageMeta, resolve: (page) => page.meta }),
    }),
  });
}

/**
 * An offset list type `<Name> { nodes, count, limit, offset }` over a list service's OffsetPage; the
 * list field passes `nodesQuery(ctx, info)` as a page field does.
 */
export function offsetPageType<T>(name: string, node: ObjectRef<any, T>) {
  return builder.objectRef<OffsetPage<T>>(name).implement({
    description: 'An offset-based list: `limit` records from `offset` (0 is the first).',
    fields: (t) => ({
      nodes: t.field({ type: [node], resolve: (page) => page.nodes }),
      count: t.exposeInt('count', { description: 'Total number of matching records' }),
      limit: t.exposeInt('limit', { description: "Records asked for, capped at the list's maximum" }),
      offset: t.exposeInt('offset'),
    }),
  });
}

/** The selection-driven Prisma query (`include`/`select`) for the rows of a page field's `nodes`. */
export const nodesQuery = (ctx: RequestContext, info: GraphQLResolveInfo) => queryFromInfo({ context: ctx, info, path: ['nodes'] });
