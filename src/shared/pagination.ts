import { z } from 'zod';
import { toCamel, toSnake } from './naming.ts';
import { Issues, parse } from './validation.ts';

/**
 * Page-based lists, without GraphQL (the admin CLI, jobs and reports use them too): a list service
 * returns a `Page` of rows; `page` counts from 1, `perPage` is capped at the list's maximum.
 */
export interface PageMeta {
  page: number;
  perPage: number;
  /** total number of matching records */
  records: number;
}

/** Relay's page info of a window (startCursor/endCursor: the first and last edge's cursor). */
export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

/**
 * One window of a list, as every list service returns it: the rows (`nodes`, with their `edges` and
 * cursors for Relay connections), the total (`totalCount`), Relay's `pageInfo`, and `meta` — the
 * page position when the window was asked by page/perPage, null when it was asked by cursor.
 */
export interface Page<T> {
  nodes: T[];
  edges: { cursor: string; node: T }[];
  totalCount: number;
  pageInfo: PageInfo;
  meta: PageMeta | null;
}

/** A window asked by page number (`page` from 1), or by cursor (Relay's first/after, last/before). */
export type PageWindow =
  | { page: number; perPage: number; cursor?: undefined }
  | { cursor: CursorWindow; page?: undefined; perPage?: undefined };

export interface CursorWindow {
  /** how many rows: first or last, capped at the list's maximum */
  size: number;
  /** last/before: the rows before the cursor (or the last ones), still answered in the list's order */
  backward: boolean;
  /** the id of the row the window starts after (forward) or ends before (backward); null from the start or end */
  id: RowId | null;
}

const pageNumber = z.number().int('must be an integer of at least 1').min(1, 'must be an integer of at least 1').nullish();
const windowSize = z.number().int('must be an integer of at least 0').min(0, 'must be an integer of at least 0').nullish();

/** A row's id, which cursors point at: a number, or a string for the few records with uuids. */
export type RowId = number | string;

/** Cursors are opaque to clients: base64url of `v1:<id>` (`v1:s:<id>` for a string id) of the row they point at. */
export const encodeCursor = (id: RowId): string => Buffer.from(typeof id === 'number' ? `v1:${id}` : `v1:s:${id}`).toString('base64url');
export function decodeCursor(cursor: string): RowId | null {
  if (cursor.length > 200) return null;
  const m = /^v1:(?:(\d{1,15})|s:([A-Za-z0-9_-]{1,100}))$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m ? (m[1] !== undefined ? Number(m[1]) : m[2]!) : null;
}
const cursorArg = z
  .string()
  .refine((c) => decodeCursor(c) !== null, 'is not a cursor of this list (use an edge\'s cursor or pageInfo.startCursor/endCursor)')
  .nullish();

/**
 * The window arguments of every list: `page` and `perPage` (table UIs, and the REST adapter's
 * documented page envelopes), or Relay's `first`/`after` and `last`/`before` (cursor pagination).
 */
export const cursorRules = { first: windowSize, after: cursorArg, last: windowSize, before: cursorArg };
export const pageArgs = { page: pageNumber, perPage: pageNumber, ...cursorRules };

const windowRules = z.object(pageArgs);

/** A list's page size when none is asked for, and the most it serves (GraphQL's query cost uses them too). */
export interface PageLimits {
  defaultPerPage: number;
  maxPerPage: number;
}

export interface WindowArgs {
  page?: number | null;
  perPage?: number | null;
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/**
 * The window the arguments ask for. Page arguments and cursor arguments do not mix, nor do the two
 * directions (first/after with last/before): 400 naming them.
 */
export function pageWindow(args: WindowArgs, limits: PageLimits): PageWindow {
  const forward = args.first != null || args.after != null;
  const backward = args.last != null || args.before != null;
  if (!forward && !backward) return { page: args.page ?? 1, perPage: Math.min(args.perPage ?? limits.defaultPerPage, limits.maxPerPage) };
  const issues = new Issues();
  if (args.page != null || args.perPage != null) issues.add([args.page != null ? 'page' : 'perPage'], 'cannot be combined with first/after/last/before: page by number or by cursor');
  if (forward && backward) issues.add(['last'], 'cannot be combined with first/after: page forward (first/after) or backward (last/before)');
  issues.throwIfAny();
  const cursor = backward ? args.before : args.after;
  const size = Math.min((backward ? args.last : args.first) ?? limits.defaultPerPage, limits.maxPerPage);
  return { cursor: { size, backward, id: cursor == null ? null : decodeCursor(cursor) } };
}

/** What a list's `find` gets: an offset window, or Prisma's cursor window (spread either into findMany). */
export type FindWindow = { skip: number; take: number; cursor?: { id: never } };

/**
 * One window of rows with the total count: `find` gets the window (spread it into findMany with the
 * where, order and selection; the order must end with the id, which makes cursors keyset positions),
 * `count` counts the same where. Both run at once.
 *
 * A cursor window is Prisma's cursor pagination (the rows after or before the cursor row in the
 * list's order: stable under inserts), reading one row more than asked to know whether more follow.
 * A list whose `find` is SQL of its own (LIMIT/OFFSET) passes `position`: the 0-based index of a row
 * in the list's order now (null when the row is no longer listed), and gets offset windows counted
 * from the cursor row, which is as stable.
 */
export async function findPage<T extends { id: RowId }>(
  window: PageWindow,
  find: (w: FindWindow) => Promise<T[]>,
  count: () => Promise<number>,
  position?: (id: RowId) => Promise<number | null>,
): Promise<Page<T>> {
  if (!window.cursor) {
    const [nodes, records] = await Promise.all([find({ skip: (window.page - 1) * window.perPage, take: window.perPage }), count()]);
    return page(nodes, records, { hasPreviousPage: window.page > 1, hasNextPage: window.page * window.perPage < records }, { ...window, records });
  }
  const { size, backward, id } = window.cursor;
  const [rows, records] = await Promise.all([
    position ? findByPosition(find, count, position, window.cursor) : find(prismaCursor(window.cursor)),
    count(),
  ]);
  const more = rows.length > size;
  const nodes = backward ? rows.slice(more ? rows.length - size : 0) : rows.slice(0, size);
  // the rows on the cursor's other side exist when there is a cursor (Relay allows this estimate)
  const pageInfo = backward ? { hasPreviousPage: more, hasNextPage: id !== null } : { hasPreviousPage: id !== null, hasNextPage: more };
  return page(nodes, records, pageInfo, null);
}

function page<T>(
  nodes: T[],
  totalCount: number,
  has: { hasNextPage: boolean; hasPreviousPage: boolean },
  meta: PageMeta | null,
  keyOf: (row: T) => RowId = (row) => (row as { id: RowId }).id,
): Page<T> {
  const edges = nodes.map((node) => ({ cursor: encodeCursor(keyOf(node)), node }));
  return { nodes, edges, totalCount, meta, pageInfo: { ...has, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null } };
}

/**
 * A window of a list computed in memory (reference values, positions summed from entries): the same
 * arguments and answer as every list, cursors on each row's stable key (digits, letters, _ and -).
 * Without window arguments the whole list (these lists are small and bounded).
 */
export function arrayPage<T>(rows: readonly T[], keyOf: (row: T) => RowId, args: WindowArgs = {}): Page<T> {
  const all = Math.max(rows.length, 1);
  const window = pageWindow(parse(windowRules, args), { defaultPerPage: all, maxPerPage: all });
  if (!window.cursor) {
    const nodes = rows.slice((window.page - 1) * window.perPage, window.page * window.perPage);
    return page(nodes, rows.length, { hasPreviousPage: window.page > 1, hasNextPage: window.page * window.perPage < rows.length }, { ...window, records: rows.length }, keyOf);
  }
  const { size, backward, id } = window.cursor;
  const at = id === null ? (backward ? rows.length : -1) : rows.findIndex((r) => keyOf(r) === id);
  if (id !== null && at < 0) return page([], rows.length, { hasPreviousPage: false, hasNextPage: false }, null, keyOf);
  const start = backward ? Math.max(0, at - size) : at + 1;
  const end = backward ? at : Math.min(rows.length, at + 1 + size);
  const has = backward ? { hasPreviousPage: start > 0, hasNextPage: id !== null } : { hasPreviousPage: id !== null, hasNextPage: end < rows.length };
  return page(rows.slice(start, end), rows.length, has, null, keyOf);
}

/** Prisma's cursor window for one row more than asked (a negative take reads backwards, still in order). */
function prismaCursor({ size, backward, id }: CursorWindow): FindWindow {
  const take = backward ? -(size + 1) : size + 1;
  // the id's type is the model's (a number, or a uuid string): never lets the window spread into either
  return id === null ? { skip: 0, take } : { cursor: { id: id as never }, skip: 1, take };
}

/** A cursor window as an offset window, from the cursor row's position now. */
async function findByPosition<T>(
  find: (w: FindWindow) => Promise<T[]>,
  count: () => Promise<number>,
  position: (id: RowId) => Promise<number | null>,
  { size, backward, id }: CursorWindow,
): Promise<T[]> {
  const at = id === null ? (backward ? await count() : -1) : await position(id);
  if (at === null) return [];
  if (!backward) return find({ skip: at + 1, take: size + 1 });
  const start = Math.max(0, at - size - 1);
  return at === 0 ? [] : find({ skip: start, take: at - start });
}

/**
 * Offset-based lists (spec 002 "GET /invitations": `limit`, `offset`, answered `{…, count, limit,
 * offset}`): `limit` records from `offset` (counted from 0), `limit` capped at the list's maximum;
 * or a cursor window as every list (then `limit` and `offset` are null).
 */
export interface OffsetPage<T> extends Page<T> {
  /** total number of matching records */
  count: number;
  limit: number | null;
  offset: number | null;
}

/** The `limit` (at least 1) and `offset` (at least 0) arguments of every offset-based list, and the cursors. */
export const offsetArgs = {
  limit: z.number().int('must be an integer of at least 1').min(1, 'must be an integer of at least 1').nullish(),
  offset: z.number().int('must be an integer of at least 0').min(0, 'must be an integer of at least 0').nullish(),
  ...cursorRules,
};

/** The records of an offset list and the total, both at once (`find` spreads the window into findMany). */
export async function findOffsetPage<T extends { id: RowId }>(
  args: { limit?: number | null; offset?: number | null } & Omit<WindowArgs, 'page' | 'perPage'>,
  limits: PageLimits,
  find: (w: FindWindow) => Promise<T[]>,
  count: () => Promise<number>,
): Promise<OffsetPage<T>> {
  if (args.first != null || args.after != null || args.last != null || args.before != null) {
    const issues = new Issues();
    if (args.limit != null || args.offset != null) issues.add([args.limit != null ? 'limit' : 'offset'], 'cannot be combined with first/after/last/before: page by offset or by cursor');
    issues.throwIfAny();
    const found = await findPage(pageWindow(args, limits), find, count);
    return { ...found, count: found.totalCount, limit: null, offset: null };
  }
  const limit = Math.min(args.limit ?? limits.defaultPerPage, limits.maxPerPage);
  const offset = args.offset ?? 0;
  const [nodes, total] = await Promise.all([find({ skip: offset, take: limit }), count()]);
  return { ...page(nodes, total, { hasPreviousPage: offset > 0, hasNextPage: offset + nodes.length < total }, null), count: total, limit, offset };
}

/**
 * Rows read by id (`findMany({ where: { id: { in } } })`, which keeps no order) put in the order of
 * the ids a page query chose; ids whose row is gone meanwhile are left out.
 */
export function inIdOrder<T extends { id: number }>(ids: readonly { id: number }[], rows: readonly T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((r) => byId.get(r.id)).filter((r) => r !== undefined);
}

type SortOrder = 'asc' | 'desc';

/** One term of an order: what `allowed` maps the public name to (a model field or a column), and its direction. */
export interface OrderTerm<F extends string = string> {
  field: F;
  direction: SortOrder;
}

const DIRECTION_WORD = /^(asc|desc)$/i;
const TERM_WORD = /^([-+]?)([A-Za-z_][A-Za-z0-9_]*)(?::(asc|desc))?$/i;

/** The public name a word names in `allowed` (snake_case, camelCase or upper case), or undefined. */
const orderName = (word: string, allowed: Readonly<Record<string, string>>): string | undefined =>
  // own names only: `constructor`, `__proto__` or `toString` are no fields (a plain object has them all)
  [word, toSnake(toCamel(word)), word.toLowerCase()].find((name) => Object.hasOwn(allowed, name));

/**
 * `order_by` as clients write it, one rule for every list: terms separated by commas, semicolons or
 * spaces (how a REST array arrives, or in one GraphQL string), each `field` (ascending), `-field`
 * (descending), `+field`, `field:asc|desc`, or `field asc|desc` (the direction as the next word:
 * spec 001's "booking_date asc, amount asc" and "a field plus asc or desc"). Each field at most once.
 * The terms mapped through `allowed`, or the problem in words.
 */
export function parseOrder<F extends string>(values: readonly string[], allowed: Readonly<Record<string, F>>): OrderTerm<F>[] | string {
  const words = values.flatMap((v) => v.split(/[\s,;]+/)).filter(Boolean);
  const fields = Object.keys(allowed).length;
  // a bound before any work: more names than the list has fields only makes a longer ORDER BY
  if (words.filter((w) => !DIRECTION_WORD.test(w)).length > fields) return `names at most ${fields} fields`;
  const terms: (OrderTerm<F> & { name: string; directed: boolean })[] = [];
  for (const word of words) {
    const last = terms.at(-1);
    if (DIRECTION_WORD.test(word)) {
      if (!last || last.directed) return `'${word}' must follow the field it orders, e.g. 'created_at desc'`;
      last.direction = word.toLowerCase() as SortOrder;
      last.directed = true;
      continue;
    }
    const m = TERM_WORD.exec(word);
    const name = m ? orderName(m[2], allowed) : undefined;
    if (!m || !name || (m[1] && m[3])) {
      return `cannot order by '${word.slice(0, 60)}'; allowed: ${Object.keys(allowed).join(', ')} (each as field or -field for descending, or field asc|desc)`;
    }
    if (terms.some((t) => t.name === name)) return `names ${name} twice`;
    terms.push({ name, field: allowed[name]!, direction: m[1] === '-' || m[3]?.toLowerCase() === 'desc' ? 'desc' : 'asc', directed: !!(m[1] || m[3]) });
  }
  return terms.map(({ field, direction }) => ({ field, direction }));
}

/** The `orderBy` argument of a list (a string list; see parseOrder). `allowed` maps the public names (snake_case) to model fields or columns. */
export const orderByNames = (allowed: Readonly<Record<string, string>>) =>
  z
    .array(z.string())
    .superRefine((values, ctx) => {
      const terms = parseOrder(values, allowed);
      if (typeof terms === 'string') ctx.issues.push({ code: 'custom', input: values, message: terms });
    })
    .nullish();

const checked = <F extends string>(terms: OrderTerm<F>[] | string): OrderTerm<F>[] => {
  if (typeof terms === 'string') throw new Error(`unchecked order: ${terms}`);
  return terms;
};

/**
 * Checked `orderBy` values as what `allowed` maps them to, each with its direction; the fallback's
 * when they name no term (none given, or only separators: `order_by=,,,`).
 */
export function orderTerms<F extends string>(values: readonly string[] | null | undefined, allowed: Readonly<Record<string, F>>, fallback: readonly string[]): OrderTerm<F>[] {
  const given = values?.length ? checked(parseOrder(values, allowed)) : [];
  return given.length ? given : checked(parseOrder(fallback, allowed));
}

/** Prisma orderBy of checked `orderBy` values; the id is always the last key so pages are stable. */
export function toOrderBy(values: readonly string[] | null | undefined, allowed: Record<string, string>, fallback: string[]): Record<string, SortOrder>[] {
  const out = orderTerms(values, allowed, fallback).map((o) => ({ [o.field]: o.direction }));
  if (!out.some((o) => 'id' in o)) out.push({ id: 'asc' });
  return out;
}

/**
 * A bounded list read whole (reference lists, a record's few children), answered as every list: the
 * window arguments split off the filters, `read` gets the filters, the rows are windowed in memory
 * (arrayPage), their cursors on the id unless `keyOf` says otherwise.
 */
export async function wholeList<A extends WindowArgs, T>(
  args: A,
  read: (filters: Omit<A, keyof WindowArgs>) => Promise<readonly T[]> | readonly T[],
  keyOf: (row: T) => RowId = (row) => (row as { id: RowId }).id,
): Promise<Page<T>> {
  const { page, perPage, first, after, last, before, ...filters } = args;
  return arrayPage(await read(filters), keyOf, { page, perPage, first, after, last, before });
}
