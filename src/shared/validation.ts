import { z } from 'zod';
import type { RequestContext } from './context.ts';
import { Decimal } from '@prisma/client/runtime/client';
import { ValidationError, type FieldIssue } from './errors.ts';
import { digitsOnly, isValidOrganizationNumber } from './norwegian-ids.ts';
import { checkReferences, type FoundReferences, type Reference } from './references.ts';

/**
 * Validation, one way for every module, each rule checked in one place:
 *   - `<module>.rules.ts` holds the zod schema of each operation's input (the GraphQL field's
 *     arguments): lengths, formats, enums, cross-field rules. The GraphQL field only takes its types
 *     and descriptions from the same shapes; it does not validate (no plugin-validation `validate:`).
 *   - the service parses its arguments once, first, before anything a client can observe (a read
 *     that answers 403/404, a write): `parse(schema, args)` throws every shape issue in one
 *     ValidationError and nothing else is checked then, as when the field validated before the resolver.
 *   - then, inside its transaction, `check(ctx, parsed, checks)` collects the immutable fields, every
 *     reference (batched, tenancy included) and the checks that need the database (uniqueness) into
 *     one ValidationError, each issue naming its field. `validate(ctx, schema, args, checks)` is both
 *     in one call, for an operation that has nothing to read before its checks.
 * Schemas only normalise (trim, upper-case): parsing an already parsed value gives the same value,
 * so an operation that calls another with its parsed input gets the same answer.
 */

export type Path = readonly (string | number)[];

/**
 * The arguments an operation takes: what its schema accepts, and null wherever a field may be
 * omitted (as GraphQL passes them); the schema rejects a null where a value is required.
 */
export type Args<S extends z.ZodType> = NullableOptionals<z.input<S>>;
type NullableOptionals<T> = T extends Date | Decimal
  ? T
  : T extends readonly (infer E)[]
    ? readonly NullableOptionals<E>[]
    : T extends object
      ? { [K in keyof T]: undefined extends T[K] ? NullableOptionals<T[K]> | null : NullableOptionals<T[K]> }
      : T;

/**
 * An issue path as clients name fields: relative to the `input` argument (the REST body), camelCase;
 * the REST adapter snake_cases it.
 */
export function issuePath(path: readonly (PropertyKey | { key: PropertyKey })[]): string[] {
  const p = path.map((s) => String(typeof s === 'object' ? s.key : s));
  return p[0] === 'input' ? p.slice(1) : p;
}

/** The issues of one input, thrown together. */
export class Issues {
  readonly list: FieldIssue[] = [];

  add(path: Path, message: string): void {
    this.list.push({ path: issuePath(path), message });
  }

  /** Whether an issue names `path` or a field below it. */
  has(path: Path): boolean {
    const p = issuePath(path);
    return this.list.some((i) => p.every((s, k) => i.path[k] === s));
  }

  /** The parsed value, or undefined after recording every issue of `value`. */
  parse<S extends z.ZodType>(schema: S, value: unknown, prefix: Path = []): z.output<S> | undefined {
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    for (const issue of result.error.issues) this.add([...prefix, ...issue.path.map((s) => (typeof s === 'symbol' ? String(s) : s))], issue.message);
    return undefined;
  }

  throwIfAny(): void {
    if (this.list.length) throw ValidationError.of(this.list);
  }
}

/** Parses `value`, throwing one ValidationError with every issue. */
export function parse<S extends z.ZodType>(schema: S, value: unknown, prefix: Path = []): z.output<S> {
  const issues = new Issues();
  const data = issues.parse(schema, value, prefix);
  issues.throwIfAny();
  return data as z.output<S>;
}

/** What parsed of an input that did not: the fields (and list elements) that passed, the others left out. */
export type Parsed<T> = T extends Date | Decimal
  ? T
  : T extends readonly (infer E)[]
    ? (Parsed<E> | undefined)[]
    : T extends object
      ? { [K in keyof T]?: Parsed<T[K]> }
      : T;

export interface Checks<T> {
  /** the client account that tenant-owned references must belong to */
  clientAccountId?: number | null;
  /**
   * The references of the input (ids of other rows), from what parsed: all are checked together,
   * one query per referenced model (src/shared/references.ts).
   */
  references?: (data: Parsed<T>) => readonly Reference[];
  /**
   * Immutable fields of the `input` with their stored values: an update may send a field back
   * unchanged (a REST client PUTs what it GETs) but not change it.
   */
  immutable?: Record<string, unknown>;
  /** checks that need the parsed input and the database (uniqueness, rules across records) */
  check?: (data: T, found: FoundReferences, issues: Issues) => Promise<void> | void;
}

/** The `input` argument of an operation's arguments, or the arguments themselves when they have none. */
const inputOf = (args: unknown): Record<string, unknown> | undefined => {
  const a = args as Record<string, unknown> | undefined;
  return (a && typeof a.input === 'object' && a.input !== null ? a.input : a) as Record<string, unknown> | undefined;
};

const same = (a: unknown, b: unknown): boolean => (typeof a === 'string' && typeof b === 'string' ? a.trim() === b.trim() : a === b);

/**
 * "'<value>' is already used by <what> <id>": another row of the client account (not `exceptId`)
 * has this value in a field that is unique per client account.
 */
export async function checkUnique(
  ctx: RequestContext,
  issues: Issues,
  unique: { model: 'item' | 'taxCode' | 'account' | 'project' | 'department' | 'tag' | 'asset'; what: string; clientAccountId: number; field: string; value: string | null | undefined; exceptId?: number },
): Promise<void> {
  if (unique.value == null) return;
  const delegate = ctx.db[unique.model] as unknown as { findFirst(args: object): Promise<{ id: number } | null> };
  const clash = await delegate.findFirst({
    where: { clientAccountId: unique.clientAccountId, [unique.field]: unique.value, ...(unique.exceptId ? { NOT: { id: unique.exceptId } } : {}) },
    select: { id: true },
  });
  if (clash) issues.add([unique.field], `'${unique.value}' is already used by ${unique.what} ${clash.id}`);
}

/**
 * Validates an operation's arguments: the shape first (shape issues alone, like parse()), then the
 * immutable fields, references and database checks, all their issues in one ValidationError. Call it
 * inside the operation's transaction, so what it checks is what the write sees; an operation that
 * reads before its checks parses first and calls check() with the parsed value.
 */
export async function validate<S extends z.ZodType>(
  ctx: RequestContext,
  schema: S,
  args: unknown,
  checks: Checks<z.output<S>> = {},
): Promise<z.output<S>> {
  return check(ctx, parse(schema, args), checks);
}

/**
 * The checks of an already parsed input (parse()): immutable fields, references and database checks,
 * all issues in one ValidationError. Returns the parsed input.
 */
export async function check<T>(ctx: RequestContext, data: T, checks: Checks<T> = {}): Promise<T> {
  const issues = new Issues();
  const input = inputOf(data);
  for (const [field, stored] of Object.entries(checks.immutable ?? {})) {
    const sent = input?.[field];
    if (sent != null && !same(sent, stored)) issues.add([field], 'cannot be changed');
  }

  const refs = checks.references?.(data as Parsed<T>) ?? [];
  const found = await checkReferences(
    ctx,
    checks.clientAccountId ?? null,
    refs.filter((r) => !issues.has(r.path)),
    issues,
  );
  if (checks.check) await checks.check(data, found, issues);
  issues.throwIfAny();
  return data;
}

// ── Field shapes shared by the rules files ─────────────────────────────────────────────────────

/**
 * Options for a rule across fields (`.superRefine(rule, evenWithIssues)`): it runs even when a field
 * of the object failed, so its issue is reported together with theirs. Such a rule must check the
 * types of the fields it reads.
 */
export const evenWithIssues = { when: () => true };

/** null or nothing where a value is needed reads "is required"; other type errors keep zod's text. */
export const required = { error: (issue: { input?: unknown }) => (issue.input == null ? 'is required' : undefined) };

/** A row id. */
export const id = z.number(required).int('must be a whole number').positive('must be a positive id');

/**
 * An immutable field an update may send back (a REST client PUTs what it GETs): any value passes the
 * shape; validate() rejects one that differs from the stored value ("cannot be changed").
 */
export const immutable = z.unknown().optional();

/** A boolean where null means the same as omitted: keep the stored value (or take the column default). */
export const flag = z
  .boolean()
  .nullish()
  .transform((v) => v ?? undefined);

/** Text of at most `max` characters. */
export const text = (max: number) => z.string(required).max(max, `must be at most ${max} characters`);

/** Optional text, trimmed; empty clears it (null). */
export const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .transform((v) => v || null)
    .nullish();

/** Optional text that must pass `test`, stored as `normalise` gives it; empty (or null) clears it. */
export const optionalChecked = (test: (value: string) => boolean, message: string, normalise = (value: string) => value) =>
  z
    .string()
    .trim()
    .refine((v) => v === '' || test(v), message)
    .transform((v) => (v === '' ? null : normalise(v)))
    .nullish();

/** A Norwegian organization number: spaces and dots accepted, the 9 digits stored. */
export const organizationNumber = optionalChecked(
  (v) => isValidOrganizationNumber(digitsOnly(v)),
  'must be a valid 9-digit Norwegian organization number (mod-11 check digit)',
  digitsOnly,
);

/**
 * The text of a list filter (free text, part of a name, a code bound): at most 200 characters, since
 * the database matches every row against it (a 1 MB pattern is work, not a search).
 */
export const filterText = z.string().max(200, 'must be at most 200 characters').nullish();

/** Text that must not be empty after trimming; stored trimmed. */
export const nonEmptyText = (max: number) => z.string(required).trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/** An ISO 4217 code, upper-cased; whether the currency exists is a reference check. */
export const currencyCode = z
  .string(required)
  .trim()
  .regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 currency code of three letters, e.g. NOK')
  .toUpperCase();

/** A JSON object (not an array or a scalar), or null; may be omitted. */
export const jsonObjectOrNull = z
  .unknown()
  .refine((v) => v == null || (typeof v === 'object' && !Array.isArray(v)), 'must be a JSON object or null')
  .optional();

/**
 * A value for a Decimal(precision, scale) column: exact, never rounded (more decimals than the column
 * has, or too many integer digits, is an issue). Strings and numbers are accepted from in-process callers.
 */
export function decimal(col: { precision: number; scale: number; min?: number; max?: number }) {
  return z
    .custom<Decimal | string | number>((v) => v instanceof Decimal || typeof v === 'string' || typeof v === 'number', required)
    .transform((v, ctx) => {
      let d: Decimal;
      try {
        d = v instanceof Decimal ? v : new Decimal(typeof v === 'string' ? v.trim() : v);
      } catch {
        d = new Decimal(NaN);
      }
      const why = !d.isFinite()
        ? 'must be a finite number'
        : d.decimalPlaces() > col.scale
          ? `must have at most ${col.scale} decimals`
          : d.abs().truncated().toFixed(0).replace(/^0$/, '').length > col.precision - col.scale
            ? `must be less than 10^${col.precision - col.scale} in magnitude`
            : (col.min !== undefined && d.lessThan(col.min)) || (col.max !== undefined && d.greaterThan(col.max))
              ? col.min === undefined
                ? `must be at most ${col.max}`
                : col.max === undefined
                  ? `must be at least ${col.min}`
                  : `must be between ${col.min} and ${col.max}`
              : null;
      if (!why) return d;
      ctx.issues.push({ code: 'custom', message: why, input: v });
      return z.NEVER;
    });
}

