import { ValidationError } from '../src/shared/errors.ts';
import { toCamel } from '../src/shared/naming.ts';

/**
 * Query-string conventions of the spec, implemented once: array parameters are one value with items
 * separated by comma, semicolon or space; booleans are true/false (1/0); integers are decimal.
 */
export function splitList(value: string): string[] {
  return value
    .split(/[,; ]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

type Raw = string | string[] | undefined;

export class QueryReader {
  constructor(private readonly query: Record<string, unknown>) {}

  /** the raw string, or undefined when absent; a parameter given twice is an error */
  raw(name: string): string | undefined {
    const v = this.query[name] as Raw;
    if (v === undefined) return undefined;
    if (Array.isArray(v) || typeof v !== 'string') throw ValidationError.field(name, 'must be given once');
    return v;
  }

  has(name: string): boolean {
    return this.query[name] !== undefined;
  }

  string(name: string): string | undefined {
    const v = this.raw(name);
    return v === undefined || v === '' ? undefined : v;
  }

  int(name: string): number | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    if (!/^-?\d{1,15}$/.test(v)) throw ValidationError.field(name, `must be an integer; got '${v}'`);
    return Number(v);
  }

  requiredInt(name: string): number {
    const v = this.int(name);
    if (v === undefined) throw ValidationError.field(name, 'is required');
    return v;
  }

  bool(name: string): boolean | undefined {
    const v = this.string(name)?.toLowerCase();
    if (v === undefined) return undefined;
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
    throw ValidationError.field(name, `must be true or false; got '${v}'`);
  }

  /** true/false, or the literal `null` meaning "no filter" */
  nullableBool(name: string): boolean | null | undefined {
    return this.string(name)?.toLowerCase() === 'null' ? null : this.bool(name);
  }

  /** a list parameter; repeated parameters are joined too (`a=1&a=2` is `a=1,2`) */
  list(name: string): string[] | undefined {
    const v = this.query[name] as Raw;
    if (v === undefined) return undefined;
    const items = (Array.isArray(v) ? v : [v]).flatMap((s) => splitList(String(s)));
    return items.length ? items : undefined;
  }

  intList(name: string): number[] | undefined {
    return this.list(name)?.map((s) => {
      if (!/^\d{1,15}$/.test(s)) throw ValidationError.field(name, `must be a list of integers; got '${s}'`);
      return Number(s);
    });
  }

  enumList<T extends string>(name: string, allowed: readonly T[]): T[] | undefined {
    return this.list(name)?.map((s) => {
      const u = s.toUpperCase() as T;
      if (!allowed.includes(u)) throw ValidationError.field(name, `'${s}' is not one of ${allowed.join(', ')}`);
      return u;
    });
  }

  enumValue<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    const u = v.toUpperCase() as T;
    if (!allowed.includes(u)) throw ValidationError.field(name, `'${v}' is not one of ${allowed.join(', ')}`);
    return u;
  }
}

/** Path parameters are positive integers in this API. */
export function pathId(params: Record<string, string>, name = 'id'): number {
  const v = params[name];
  if (!/^\d{1,15}$/.test(v ?? '')) throw ValidationError.field(name, `must be a positive integer; got '${v}'`);
  return Number(v);
}

/**
 * A JSON request body as a GraphQL input object: top-level snake_case keys become camelCase (values,
 * such as `metadata`, are left alone). Read-only fields a client echoes back from a GET are dropped;
 * any other unknown field is rejected by GraphQL input coercion with a 400.
 */
export function bodyInput(body: unknown, options: { readOnly?: readonly string[] } = {}): Record<string, unknown> {
  if (body === undefined || body === null || (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0)) {
    return {};
  }
  if (typeof body !== 'object' || Array.isArray(body)) throw new ValidationError('The request body must be a JSON object');
  const readOnly = new Set(options.readOnly ?? []);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (!readOnly.has(key)) out[toCamel(key)] = value;
  }
  return out;
}
