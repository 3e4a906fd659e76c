import { queryFromInfo } from '@pothos/plugin-prisma';
import type { ArgBuilder, ObjectRef } from '@pothos/core';
import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import { builder } from '../builder.ts';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
import type { RequestContext } from './context.ts';
import type { OffsetPage, Page, PageMeta as PageMetaShape } from './pagination.ts';

/** GraphQL side of lists: Relay connections (the plain window and ordering rules are in pagination.ts). */
export const PageMeta = builder.objectRef<PageMetaShape>('PageMeta').implement({
  description: 'Position of a page in a list read by page and perPage.',
  fields: (t) => ({
    page: t.exposeInt('page'),
    perPage: t.exposeInt('perPage'),
    records: t.exposeInt('records', { description: 'Total number of matching records' }),
    pages: t.int({ description: 'Number of pages (0 when nothing matches)', resolve: (m) => Math.ceil(m.records / m.perPage) }),
  }),
});

/**
 * A list type: the Relay connection `<Name>Connection { edges { cursor node } nodes pageInfo
 * totalCount meta }` (edge type `<Name>Edge`) over a list service's Page. `name` is the list's old
 * page type name (`ProjectPage`), whose stem names the connection. The list field takes
 * `pageArgs(t)` and passes `nodesQuery(ctx, info)` to the service: the Prisma include of what the
 * query selects under `nodes` and `edges.node`, so relations below load in one batched query per
 * level whatever the page size.
 */
export function pageType<T>(name: string, node: ObjectRef<any, T>) {
  const stem = name.replace(/Page$/, '');
  return builder.connectionObject(
    {
      name: `${stem}Connection`,
      type: node,
      description: `A window of a list of ${node.name}: by cursor (first/after, last/before) or by page (page/perPage).`,
      fields: (t) => ({
        totalCount: t.int({ description: 'Total number of matching records', resolve: (c) => (c as unknown as Page<T>).totalCount }),
        meta: t.field({
          type: PageMeta,
          nullable: true,
          extensions: { nullOnlyByCursor: true },
          description: 'The page position when the list was read with page/perPage; null when read by cursor',
          resolve: (c) => (c as unknown as Page<T>).meta,
        }),
      }),
    },
    { name: `${stem}Edge` },
  );
}

/**
 * An offset list: a connection as pageType's (`<Name>Connection`, from the old type name
 * `<Name>List`) with the offset window's `count`, `limit` and `offset` beside (spec 002's envelope).
 */
export function offsetPageType<T>(name: string, node: ObjectRef<any, T>) {
  const ref = pageType(name.replace(/List$/, 'Page'), node);
  builder.objectFields(ref, (t) => ({
    count: t.int({ description: 'Total number of matching records', resolve: (c) => (c as unknown as OffsetPage<T>).count }),
    limit: t.int({ nullable: true, extensions: { nullOnlyByCursor: "Records asked for, capped at the list's maximum" }, description: "Records asked for, capped at the list's maximum; null when read by cursor", resolve: (c) => (c as unknown as OffsetPage<T>).limit }),
    offset: t.int({ nullable: true, extensions: { nullOnlyByCursor: true }, description: 'The first record, from 0; null when read by cursor', resolve: (c) => (c as unknown as OffsetPage<T>).offset }),
  }));
  return ref;
}

/**
 * The selection-driven Prisma query (`include`/`select`) for the rows of a list field: what its
 * `nodes` and its `edges { node }` select, merged.
 */
export function nodesQuery(ctx: RequestContext, info: GraphQLResolveInfo): { include?: object; select?: object } {
  const selected = (path: string[]) => (hasPath(info, path) ? queryFromInfo({ context: ctx, info, path }) : {});
  return mergeQueries(selected(['nodes']), selected(['edges', 'node']));
}

/** Whether the field's selection reaches `path` (fragments included). */
function hasPath(info: GraphQLResolveInfo, path: string[]): boolean {
  let sets = info.fieldNodes.map((n) => n.selectionSet).filter((s) => s !== undefined);
  for (const name of path) {
    const next: SelectionSetNode[] = [];
    const visit = (set: SelectionSetNode) => {
      for (const sel of set.selections) {
        if (sel.kind === Kind.FIELD && sel.name.value === name && sel.selectionSet) next.push(sel.selectionSet);
        else if (sel.kind === Kind.INLINE_FRAGMENT) visit(sel.selectionSet);
        else if (sel.kind === Kind.FRAGMENT_SPREAD && info.fragments[sel.name.value]) visit(info.fragments[sel.name.value].selectionSet);
      }
    };
    sets.forEach(visit);
    if (!next.length) return false;
    sets = next;
  }
  return true;
}

type Query = { include?: Record<string, unknown>; select?: Record<string, unknown> };

/** Two Prisma queries of one model as one: their includes (or selects) deep-merged. */
function mergeQueries(a: Query, b: Query): Query {
  if (!Object.keys(a).length) return b;
  if (!Object.keys(b).length) return a;
  if (a.select || b.select) {
    // a select names every field it reads: select what either reads (an include becomes true)
    return { select: mergeTrees(a.select ?? { ...a.include }, b.select ?? { ...b.include }) };
  }
  return { include: mergeTrees(a.include ?? {}, b.include ?? {}) };
}

function mergeTrees(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const mine = out[key];
    if (mine === undefined || mine === true) out[key] = value === true && mine !== undefined ? mine : value;
    else if (value === true) continue;
    else if (typeof mine === 'object' && typeof value === 'object' && mine && value) out[key] = mergeTrees(mine as Record<string, unknown>, value as Record<string, unknown>);
  }
  return out;
}

/**
 * Relay's window arguments of a list field, beside its page/perPage (pagination.ts `pageArgs` checks
 * them; page arguments and cursors do not mix).
 */
export const cursorArgs = (t: { arg: ArgBuilder<Types> }) => ({
  first: t.arg.int({ description: 'Relay: the first n rows (after `after`), capped at the list maximum' }),
  after: t.arg.string({ description: 'Relay: an edge cursor or pageInfo.endCursor; the rows after it' }),
  last: t.arg.int({ description: 'Relay: the last n rows (before `before`), capped at the list maximum' }),
  before: t.arg.string({ description: 'Relay: an edge cursor or pageInfo.startCursor; the rows before it' }),
});

/** The window arguments of a bounded list read whole (wholeList): Relay's cursors only, no pages. */
export const windowArgs = (t: { arg: ArgBuilder<Types> }) => cursorArgs(t);
