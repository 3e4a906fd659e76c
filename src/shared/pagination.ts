import { ValidationError } from './errors.ts';
import { toCamel, toSnake } from './naming.ts';

/** Page-based lists: `page` from 1, `per_page` capped at the list's maximum. */
export interface PageWindow {
  page: number;
  perPage: number;
}

export function pageWindow(
  args: { page?: number | null; perPage?: number | null },
  limits: { defaultPerPage: number; maxPerPage: number },
): PageWindow {
  const page = args.page ?? 1;
  const perPage = args.perPage ?? limits.defaultPerPage;
  if (!Number.isInteger(page) || page < 1) throw ValidationError.field('page', 'must be an integer of at least 1');
  if (!Number.isInteger(perPage) || perPage < 1) throw ValidationError.field('perPage', 'must be an integer of at least 1');
  return { page, perPage: Math.min(perPage, limits.maxPerPage) };
}

type SortOrder = 'asc' | 'desc';

/**
 * `order_by` values: a field name, `-` for descending (e.g. `description`, `-created_at`), several
 * separated by commas. `allowed` maps the public names (snake_case) to model fields; camelCase is
 * accepted too. The id is always the last key so pages are stable.
 */
export function parseOrderBy(
  values: readonly string[] | null | undefined,
  allowed: Record<string, string>,
  fallback: string[],
): Record<string, SortOrder>[] {
  const list = values?.length ? values : fallback;
  const out: Record<string, SortOrder>[] = [];
  for (const raw of list) {
    const desc = raw.startsWith('-');
    const name = toSnake(toCamel(raw.replace(/^[-+]/, '').trim()));
    const field = allowed[name];
    if (!field) {
      throw ValidationError.field('orderBy', `cannot order by '${raw}'; allowed: ${Object.keys(allowed).join(', ')} (prefix - for descending)`);
    }
    out.push({ [field]: desc ? 'desc' : 'asc' });
  }
  if (!out.some((o) => 'id' in o)) out.push({ id: 'asc' });
  return out;
}

export interface PageSource {
  where: Record<string, unknown>;
  orderBy: Record<string, SortOrder>[];
  window: PageWindow;
}
