import {
  coerceInputValue,
  getNamedType,
  getNullableType,
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  GraphQLString,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLInputType,
} from 'graphql';

/**
 * The hostile-input sweep's generator (test/platform/hostile-sweep.test.ts): hostile values for every
 * place a client can put one, valid baseline arguments to put them into, and the plumbing to write
 * both as JSON, as a GraphQL literal or as a query string. Nothing here names a module: the sweep
 * walks the operation table and the schema, so a new route or field is swept without new code.
 */

/** A value written verbatim: numbers JSON.parse cannot keep, nesting JSON.stringify should not build. */
export class Raw {
  constructor(
    readonly json: string,
    readonly graphql = json,
  ) {}
}

export interface Hostile {
  name: string;
  value: unknown;
  /** the scalar types the value is about (a JSON argument takes every value); elsewhere it is one more value of its kind */
  for?: string[];
}

const NUMERIC = ['Decimal', 'Int', 'Float'];
const DATES = ['Date', 'DateTime'];

/** The 1 MB string: no field may take it. */
export const MB = 'x'.repeat(1_000_000);
const own = (json: string) => JSON.parse(json) as unknown; // `__proto__` as an own key, as JSON.parse makes it
const deepArray = (n: number) => new Raw(`${'['.repeat(n)}1${']'.repeat(n)}`);
const deepObject = (n: number) => new Raw(`${'{"a":'.repeat(n)}1${'}'.repeat(n)}`, `${'{a:'.repeat(n)}1${'}'.repeat(n)}`);

/** Values for a JSON body field, a GraphQL argument or input field, an MCP tool argument. */
export const HOSTILE_VALUES: Hostile[] = [
  { name: 'NUL', value: 'a\u0000b' },
  { name: '"__proto__"', value: '__proto__' },
  { name: '"constructor"', value: 'constructor' },
  { name: '"toString"', value: 'toString' },
  { name: '{"__proto__": {…}}', value: own('{"__proto__": {"polluted": true}}') },
  { name: '{"constructor": {"prototype": …}}', value: own('{"constructor": {"prototype": {"polluted": true}}}') },
  { name: 'an array nested 5000 deep', value: deepArray(5000) },
  { name: 'an object nested 5000 deep', value: deepObject(5000) },
  { name: '1e308', value: new Raw('1e308') },
  { name: '1e309 (Infinity to JSON.parse)', value: new Raw('1e309') },
  { name: '2**53+1', value: new Raw('9007199254740993'), for: ['Decimal', 'Float'] },
  { name: '-1e30', value: new Raw('-1e30'), for: ['Decimal', 'Float'] },
  { name: '2**31-1 (the largest Int)', value: 2 ** 31 - 1 },
  { name: '2**31', value: 2 ** 31 },
  { name: '-(2**31)-1', value: -(2 ** 31) - 1 },
  { name: '99999999999999999999 (number)', value: new Raw('99999999999999999999') },
  { name: '"99999999999999999999"', value: '99999999999999999999', for: NUMERIC },
  { name: '-1', value: -1 },
  { name: '0', value: 0 },
  { name: '1.5', value: 1.5 },
  { name: '"NaN"', value: 'NaN', for: NUMERIC },
  { name: '"Infinity"', value: 'Infinity', for: NUMERIC },
  { name: '"1e400"', value: '1e400', for: NUMERIC },
  { name: 'a 1 MB string', value: MB },
  { name: '"2026-02-30"', value: '2026-02-30', for: DATES },
  { name: '"not-a-date"', value: 'not-a-date', for: DATES },
  { name: '"0000-00-00"', value: '0000-00-00', for: DATES },
  { name: '"+275760-09-14"', value: '+275760-09-14', for: DATES },
  { name: '"9999-12-31T24:00:00Z"', value: '9999-12-31T24:00:00Z', for: DATES },
  { name: '[] (an array for a scalar)', value: [] },
  { name: '["a", "b"]', value: ['a', 'b'] },
  { name: '[1, 2]', value: [1, 2] },
  { name: '{} (an object for a scalar)', value: {} },
  { name: '{"a": 1}', value: { a: 1 } },
  { name: '""', value: '' },
  { name: '" "', value: ' ' },
  { name: 'true', value: true },
  { name: 'null', value: null },
  { name: '"%"', value: '%' },
  { name: '"a\\\\" (a trailing backslash)', value: 'a\\' },
  { name: `"' OR 1=1 --"`, value: "' OR 1=1 --" },
  { name: 'a lone surrogate', value: '\ud800' },
  { name: '{"a": "\\ud800"} (a lone surrogate inside)', value: own('{"a": "\\ud800"}') },
  { name: '{"\\udc00": 1} (a lone surrogate as a key)', value: own('{"\\udc00": 1}') },
];

const named = (...names: string[]) => HOSTILE_VALUES.filter((h) => names.includes(h.name));

/** What the edge guard, the body parser or the lexer treat specially: sent to every place whatever its type. */
const EVERYWHERE = new Set(['NUL', 'a 1 MB string', 'an array nested 5000 deep', 'an object nested 5000 deep', '{"__proto__": {…}}']);

/** Nesting the edge refuses before any field is looked at: sent to each argument, not again to every field inside it. */
const DEEP = new Set(['an array nested 5000 deep', 'an object nested 5000 deep']);

/** Where a place is: an argument (a top-level body field), or a field inside one. */
export type Place = 'argument' | 'nested';

/**
 * What the GraphQL lexer, parser and literal validation see in a literal rather than a variable: a
 * number past 32 bits and a 1 MB string everywhere; what the document guard or the lexer refuse
 * wherever it stands (the NUL escape, the nesting, an integer token past any double, a lone
 * surrogate escape) once per argument.
 */
export const literalValues = (place: Place): Hostile[] =>
  named('2**31', 'a 1 MB string', ...(place === 'argument' ? ['NUL', ...DEEP, '99999999999999999999 (number)', 'a lone surrogate'] : []));

/** A smaller set for the MCP tool calls (the MCP layer splits the arguments, the rest is the REST route's). */
export const MCP_VALUES = named('NUL', 'a 1 MB string', 'an array nested 5000 deep', '{"__proto__": {…}}', '2**31', '["a", "b"]');

const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const parsed = (v: unknown): unknown => (v instanceof Raw ? JSON.parse(v.json) : v);

/** The JSON kinds a place of this type naturally takes (a Decimal takes strings and exact numbers). */
function naturalKinds(type: GraphQLInputType): Set<string> {
  const t = getNullableType(type) as GraphQLInputType;
  if (isListType(t)) return new Set(['array', ...naturalKinds(t.ofType)]); // a single value is a list of one
  if (isInputObjectType(t)) return new Set(['object']);
  if (t === GraphQLInt || t === GraphQLFloat) return new Set(['number']);
  if (t === GraphQLBoolean) return new Set(['boolean']);
  if (isScalarType(t) && t.name === 'Decimal') return new Set(['number', 'string']);
  if (isScalarType(t) && t.name === 'JSON') return new Set(['null', 'array', 'object', 'string', 'number', 'boolean']);
  return new Set(['string']);
}

/**
 * The hostile values worth sending to a place of `type`. Every value the type lets through (they
 * reach the rules and the database, where each field differs) and every value of a kind the type
 * takes (huge numbers for an Int, impossible dates for a Date); of the values GraphQL coercion refuses
 * for their kind alone (an array for an Int), one of each kind, since that refusal is graphql-js's
 * and the same for every field of the type. The edge's values go everywhere (deep nesting to each
 * argument).
 */
export function valuesFor(type: GraphQLInputType, place: Place): Hostile[] {
  const natural = naturalKinds(type);
  const everywhere = (h: Hostile) => EVERYWHERE.has(h.name) && (place === 'argument' || !DEEP.has(h.name));
  const seen = new Set(HOSTILE_VALUES.filter(everywhere).map((h) => kindOf(parsed(h.value))));
  const scalar = getNamedType(type).name;
  return HOSTILE_VALUES.filter((h) => {
    if (EVERYWHERE.has(h.name)) return everywhere(h);
    const value = parsed(h.value);
    const kind = kindOf(value);
    const meant = !h.for || scalar === 'JSON' || h.for.includes(scalar);
    if (meant && (natural.has(kind) || accepts(type, value))) return true;
    if (seen.has(kind)) return false;
    seen.add(kind);
    return true;
  });
}

function accepts(type: GraphQLInputType, value: unknown): boolean {
  try {
    coerceInputValue(value, type);
    return true;
  } catch {
    return false;
  }
}

/** Values of a path or query parameter, as they are written in the URL (percent-encoded where it matters). */
export const HOSTILE_PARAMS: Hostile[] = [
  ...[
    '%00', '..', '.', '%2e%2e', '%2F', '..%2F..%2Fetc%2Fpasswd', '%', '%E0%A4%A', '%C0%80', '%ED%A0%80', '%F0%9F%92%A9',
    '-1', '0', '00', '1.5', '1e3', '0x10', '+1', '%201', '2147483647', '2147483648', '-2147483649', '9007199254740993', '99999999999999999999',
    '1e308', 'Infinity', 'NaN', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'null', 'undefined', 'true',
    '%5B%5D', '%7B%7D', '2026-02-30', 'not-a-date', '0000-00-00', '%20', "'%20OR%201%3D1--", 'a%5C', '%25', '_', ',,,', '1%2C2', ';',
  ].map((raw) => ({ name: raw, value: raw })),
  { name: 'an 8000-character value', value: 'x'.repeat(8000) },
  { name: 'an 8000-digit value', value: '9'.repeat(8000) },
];

/** The same query parameter written in other shapes than `k=v`. */
export const PARAM_SHAPES: { name: string; query: (wire: string) => string }[] = [
  { name: 'given twice', query: (w) => `${w}=1&${w}=2` },
  { name: 'as k[]=', query: (w) => `${w}[]=1` },
  { name: 'as k[__proto__]=', query: (w) => `${w}[__proto__]=1` },
  { name: 'empty', query: (w) => `${w}=` },
  { name: 'without =', query: (w) => w },
];

// ── JSON and GraphQL literals ──────────────────────────────────────────────────────────────────

/** JSON text of the long strings (the 1 MB one), written once: the sweep sends each many times. */
const longJson = new Map<string, string>();

/** JSON text of a value that may hold Raw parts. */
export function toJson(value: unknown): string {
  if (value instanceof Raw) return value.json;
  if (typeof value === 'string' && value.length > 65_536) {
    let json = longJson.get(value);
    if (json === undefined) longJson.set(value, (json = JSON.stringify(value)));
    return json;
  }
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/**
 * A GraphQL literal of a value. Where the type is known (the baseline around a hostile value),
 * enum names are written bare; the hostile value itself is written as what it is.
 */
export function toLiteral(value: unknown, type?: GraphQLInputType): string {
  if (value instanceof Raw) return value.graphql;
  const named = type && getNullableType(type);
  if (Array.isArray(value)) return `[${value.map((v) => toLiteral(v, named && isListType(named) ? named.ofType : undefined)).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const fields = named && isInputObjectType(named) ? named.getFields() : undefined;
    // a key that is no GraphQL name is written quoted: a syntax error, which is one more 4xx to expect
    const entries = Object.entries(value).map(([k, v]) => `${/^[_A-Za-z][_0-9A-Za-z]*$/.test(k) ? k : JSON.stringify(k)}: ${toLiteral(v, fields?.[k]?.type)}`);
    return `{${entries.join(', ')}}`;
  }
  if (typeof value === 'string' && named && isEnumType(named) && named.getValue(value)) return value;
  return JSON.stringify(value) ?? 'null';
}

/**
 * `value` (of `type`) with the element at `path` replaced: objects and lists are copied along the
 * path, and a parent the baseline left out (an optional list of inputs) is filled in first.
 */
export function placeAt(value: unknown, type: GraphQLInputType, path: (string | number)[], replacement: unknown, ctx: BaselineContext): unknown {
  if (!path.length) return replacement;
  const t = getNullableType(type) as GraphQLInputType;
  if (isListType(t)) {
    const list = Array.isArray(value) && value.length ? value : [baseline(t.ofType, '', ctx)];
    return list.map((v, i) => (i === path[0] ? placeAt(v, t.ofType, path.slice(1), replacement, ctx) : v));
  }
  if (!isInputObjectType(t)) throw new Error(`no field ${String(path[0])} in ${String(type)}`);
  const object = { ...((value ?? baseline(t, '', ctx)) as Record<string, unknown>) };
  const field = t.getFields()[path[0]];
  const current = object[field.name] ?? (path.length > 1 ? baseline(field.type, field.name, ctx, t.name) : undefined);
  object[field.name] = placeAt(current, field.type, path.slice(1), replacement, ctx);
  return object;
}

// ── Baselines ──────────────────────────────────────────────────────────────────────────────────

/** Ids of records the sweep's tenant owns, by entity (the GraphQL type name, first letter lower case). */
export type Fixtures = Record<string, number>;

/** Argument names whose entity is not their own name. */
const ENTITY_ALIASES: Record<string, string> = { providerAccount: 'clientAccount', createdBy: 'user', updatedBy: 'user' };

/**
 * The fixture an Int argument named `name` points at: `id` is the record of the field's own type,
 * `fooBarId(s)` a fooBar, or the longest fixture its name ends with (salesUnitId → unit).
 */
export function fixtureFor(name: string, ownType: string | undefined, fixtures: Fixtures): number | undefined {
  if (name === 'id') return ownType ? fixtures[lowerFirst(ownType)] : undefined;
  const m = /^(.*?)Ids?$/.exec(name);
  if (!m) return undefined;
  const entity = ENTITY_ALIASES[m[1]] ?? m[1];
  if (fixtures[entity] !== undefined) return fixtures[entity];
  const suffix = Object.keys(fixtures)
    .filter((k) => entity.endsWith(k.charAt(0).toUpperCase() + k.slice(1)))
    .sort((a, b) => b.length - a.length)[0];
  return suffix ? fixtures[suffix] : undefined;
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

let serial = 0;

/** Known-good text for fields whose format is checked; any other text gets a unique name. */
function baselineString(field: string, parent: string | undefined, strings: Record<string, string>): string {
  return strings[`${parent}.${field}`] ?? strings[field] ?? `Sweep ${++serial}`;
}

export interface BaselineContext {
  fixtures: Fixtures;
  /** text by `Type.field` or `field` */
  strings: Record<string, string>;
  /** the GraphQL type the operation returns (what `id` points at) */
  ownType?: string;
}

/**
 * A valid value of an input type: non-null fields only, ids from the fixtures, known-good text for
 * fields with formats. Where nothing is known it is at least well-typed, so the hostile value next
 * to it is what the request is about.
 */
export function baseline(type: GraphQLInputType, field: string, ctx: BaselineContext, parent?: string): unknown {
  const t = getNullableType(type) as GraphQLInputType;
  if (isListType(t)) return [baseline(t.ofType, field, ctx, parent)];
  if (isInputObjectType(t)) {
    const out: Record<string, unknown> = {};
    for (const f of Object.values(t.getFields())) {
      if (isNonNullType(f.type) && f.defaultValue === undefined) out[f.name] = baseline(f.type, f.name, { ...ctx, ownType: undefined }, t.name);
    }
    return out;
  }
  if (isEnumType(t)) return t.getValues()[0].value ?? t.getValues()[0].name;
  if (t === GraphQLInt) return fixtureFor(field, ctx.ownType, ctx.fixtures) ?? 1;
  if (t === GraphQLFloat) return 1;
  if (t === GraphQLBoolean) return true;
  if (t === GraphQLString) return baselineString(field, parent, ctx.strings);
  if (isScalarType(t)) return { Decimal: '1', Date: '2026-01-01', DateTime: '2026-01-01T00:00:00Z', JSON: {} }[t.name] ?? 'x';
  return null;
}

/**
 * Every place inside an input type a value can go: the value itself, each field of an input object
 * (nested ones too, below a list through its first element). Each path ends at a field.
 */
export function positions(type: GraphQLInputType, seen: ReadonlySet<string> = new Set()): (string | number)[][] {
  const t = getNullableType(type) as GraphQLInputType;
  if (isListType(t)) {
    const inner = positions(t.ofType, seen);
    return isInputObjectType(getNamedType(t)) ? inner.map((p) => (p.length ? [0, ...p] : p)) : inner;
  }
  if (!isInputObjectType(t) || seen.has(t.name)) return [[]];
  const out: (string | number)[][] = [[]];
  for (const f of Object.values(t.getFields())) for (const p of positions(f.type, new Set([...seen, t.name]))) out.push([f.name, ...p]);
  return out;
}

/**
 * For a place of a list type: a list of 70,000 valid items (the baseline item repeated), more values
 * than one database query can take as parameters.
 */
export function longList(type: GraphQLInputType, field: string, ctx: BaselineContext): Hostile[] {
  const t = getNullableType(type) as GraphQLInputType;
  if (!isListType(t)) return [];
  return [{ name: 'a list of 70,000 valid items', value: new Array(70_000).fill(baseline(t.ofType, field, ctx)) }];
}

/** The type of the place at `path` inside a value of `type` (list indexes step into the item type). */
export function typeAt(type: GraphQLInputType, path: (string | number)[]): GraphQLInputType {
  let t = type;
  for (const step of path) {
    const inner = getNullableType(t) as GraphQLInputType;
    if (isListType(inner)) t = inner.ofType;
    else if (isInputObjectType(inner)) t = inner.getFields()[step].type;
    else throw new Error(`no place ${String(step)} in ${String(type)}`);
  }
  return t;
}

/** Runs the tasks with at most `n` at a time, in order of the list. */
export async function pool<T, R>(items: readonly T[], n: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await task(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}
