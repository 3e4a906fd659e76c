import { z } from 'zod';
import { toCamel, toSnake } from './naming.ts';

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

export interface Page<T> {
  nodes: T[];
  meta: PageMeta;
}

export interface PageWindow {
  page: number;
  perPage: number;
}

const pageNumber = z.number().int('must be an integer of at least 1').min(1, 'must be an integer of at least 1').nullish();

/** The `page` and `perPage` arguments of every paged list. */
export const pageArgs = { page: pageNumber, perPage: pageNumber };

/** A list's page size when none is asked for, and the most it serves (GraphQL's query cost uses them too). */
export interface PageLimits {
  defaultPerPage: number;
  maxPerPage: number;
}

export function pageWindow(args: { page?: number | null; perPage?: number | null }, limits: PageLimits): PageWindow {
  return { page: args.page ?? 1, perPage: Math.min(args.perPage ?? limits.defaultPerPage, limits.maxPerPage) };
}

/**
 * One page of rows with the total count: `find` gets the window (spread it into findMany with the
 * where, order and selection), `count` counts the same where. Both run at once.
 */
export async function findPage<T>(
  window: PageWindow,
  find: (w: { skip: number; take: number }) => Promise<T[]>,
  count: () => Promise<number>,
): Promise<Page<T>> {
  const [nodes, records] = await Promise.all([find({ skip: (window.page - 1) * window.perPage, take: window.perPage }), count()]);
  return { nodes, meta: { ...window, records } };
}

/**
 * Offset-based lists (spec 002 "GET /invitations": `limit`, `offset`, answered `{…, count, limit,
 * offset}`): `limit` records from `offset` (counted from 0), `limit` capped at the list's maximum.
 */
export interface OffsetPage<T> {
  nodes: T[];
  /** total number of matching records */
  count: number;
  limit: number;
  offset: number;
}

/** The `limit` (at least 1) and `offset` (at least 0) arguments of every offset-based list. */
export const offsetArgs = {
  limit: z.number().int('must be an integer of at least 1').min(1, 'must be an integer of at least 1').nullish(),
  offset: z.number().int('must be an integer of at least 0').min(0, 'must be an integer of at least 0').nullish(),
};

/** The records of an offset list and the total, both at once (`find` spreads skip/take into findMany). */
export async function findOffsetPage<T>(
  args: { limit?: number | null; offset?: number | null },
  limits: PageLimits,
  find: (w: { skip: number; take: number }) => Promise<T[]>,
  count: () => Promise<number>,
): Promise<OffsetPage<T>> {
  const limit = Math.min(args.limit ?? limits.defaultPerPage, limits.maxPerPage);
  const offset = args.offset ?? 0;
  const [nodes, total] = await Promise.all([find({ skip: offset, take: limit }), count()]);
  return { nodes, count: total, limit, offset };
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
