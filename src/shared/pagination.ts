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

type SortOrder = 'asc' | 'desc';

/** The model field an `orderBy` value names (`-created_at`, `createdAt`, `+name`), or undefined. */
const orderField = (raw: string, allowed: Record<string, string>): string | undefined => {
  const name = toSnake(toCamel(raw.replace(/^[-+]/, '').trim()));
  // own names only: `constructor`, `__proto__` or `toString` are no fields (a plain object has them all)
  return Object.hasOwn(allowed, name) ? allowed[name] : undefined;
};

/**
 * The `orderBy` argument: field names, `-` for descending (e.g. `description`, `-created_at`).
 * `allowed` maps the public names (snake_case) to model fields; camelCase is accepted too.
 */
export const orderByNames = (allowed: Record<string, string>) =>
  z
    .array(z.string())
    // each field once at most: a longer list only makes a longer ORDER BY (100,000 names were accepted)
    .max(Object.keys(allowed).length, `names at most ${Object.keys(allowed).length} fields`)
    .superRefine((values, ctx) => {
      for (const raw of values) {
        if (!orderField(raw, allowed)) {
          ctx.issues.push({
            code: 'custom',
            input: raw,
            message: `cannot order by '${raw}'; allowed: ${Object.keys(allowed).join(', ')} (prefix - for descending)`,
          });
        }
      }
    })
    .nullish();

/** Checked `orderBy` values (or the fallback) as what `allowed` maps them to, each with its direction. */
export function orderTerms(values: readonly string[] | null | undefined, allowed: Record<string, string>, fallback: readonly string[]): { field: string; direction: SortOrder }[] {
  return (values?.length ? values : fallback).map((raw) => ({ field: orderField(raw, allowed)!, direction: raw.startsWith('-') ? 'desc' : 'asc' }));
}

/** Prisma orderBy of checked `orderBy` values; the id is always the last key so pages are stable. */
export function toOrderBy(values: readonly string[] | null | undefined, allowed: Record<string, string>, fallback: string[]): Record<string, SortOrder>[] {
  const out = orderTerms(values, allowed, fallback).map((o) => ({ [o.field]: o.direction }));
  if (!out.some((o) => 'id' in o)) out.push({ id: 'asc' });
  return out;
}
