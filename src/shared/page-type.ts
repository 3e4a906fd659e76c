import { queryFromInfo } from '@pothos/plugin-prisma';
import type { ObjectRef } from '@pothos/core';
import type { GraphQLResolveInfo } from 'graphql';
import type PrismaTypes from '../generated/pothos-types.ts';
import { builder } from '../builder.ts';
import type { RequestContext } from './context.ts';
import type { Page, PageSource } from './pagination.ts';

/** GraphQL side of page-based lists (the plain window and ordering rules are in pagination.ts). */
export const PageMeta = builder
  .objectRef<{ page: number; perPage: number; records: number }>('PageMeta')
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

/** The selection-driven Prisma query (`include`/`select`) for the rows of a page field's `nodes`. */
export const nodesQuery = (ctx: RequestContext, info: GraphQLResolveInfo) => queryFromInfo({ context: ctx, info, path: ['nodes'] });

type ModelName = keyof PrismaTypes & string;
interface Delegate {
  findMany(args: object): Promise<unknown[]>;
  count(args: object): Promise<number>;
}

/**
 * A page type `<Name>Page { nodes, meta }`. `nodes` spreads the selection-derived Prisma query, so
 * relations below it load in one batched query per level whatever the page size.
 */
/** @deprecated until every list service returns a Page. */
export function legacyPageType<M extends ModelName>(
  name: string,
  model: M,
  delegate: (ctx: RequestContext) => Delegate,
) {
  return builder.objectRef<PageSource>(name).implement({
    fields: (t) => ({
      nodes: t.prismaField({
        type: [model] as never,
        resolve: (query: object, parent: PageSource, _args: unknown, ctx: RequestContext) =>
          delegate(ctx).findMany({
            ...query,
            where: parent.where,
            orderBy: parent.orderBy,
            skip: (parent.window.page - 1) * parent.window.perPage,
            take: parent.window.perPage,
          }) as never,
      } as never),
      meta: t.field({
        type: PageMeta,
        resolve: async (parent, _args, ctx) => ({
          page: parent.window.page,
          perPage: parent.window.perPage,
          records: await delegate(ctx).count({ where: parent.where }),
        }),
      }),
    }),
  });
}
