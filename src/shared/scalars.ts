import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { Decimal } from '@prisma/client/runtime/client';
import { minorUnitsOf } from '../reference-data/currencies.ts';

export { Decimal };

const DECIMAL_RE = /^-?\d{1,20}(\.\d{1,12})?$/;

/**
 * A JSON number is taken only when it is exactly what the client wrote: no exponent and at most 15
 * significant digits (a double holds 15 exactly). Anything longer may already have been rounded by
 * the JSON parser, so it is refused with a hint to send a string.
 */
function fromJsonNumber(value: number): string {
  const text = String(value);
  const digits = text.replace(/^-/, '').replace('.', '').replace(/^0+/, '');
  if (!Number.isFinite(value) || /e/i.test(text) || digits.length > 15) {
    throw new GraphQLError(`Decimal ${text} cannot be taken exactly from a JSON number (at most 15 significant digits, no exponent): send it as a string, e.g. "1250.50"`);
  }
  return text;
}

function parseDecimal(value: unknown): Decimal {
  if (typeof value === 'number') value = fromJsonNumber(value);
  if (typeof value !== 'string' || !DECIMAL_RE.test(value.trim())) {
    throw new GraphQLError(`Decimal must be a decimal number written as a string, e.g. "1250.50"; got ${JSON.stringify(value)}`);
  }
  return new Decimal(value.trim());
}

/** Money and quantities: a string on the wire, never a float. Fields format with their column's scale. */
export const DecimalScalar = new GraphQLScalarType({
  name: 'Decimal',
  description: 'A decimal number as a string with the scale of its column, e.g. "1250.50" or "2.500000".',
  serialize: (v) => (v instanceof Decimal ? v.toString() : typeof v === 'string' ? v : String(v)),
  parseValue: parseDecimal,
  parseLiteral: (ast: ValueNode) => {
    if (ast.kind === Kind.STRING || ast.kind === Kind.INT || ast.kind === Kind.FLOAT) return parseDecimal(ast.value);
    throw new GraphQLError('Decimal must be a string or number literal');
  },
});

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function parseDateString(value: unknown): Date {
  const m = typeof value === 'string' ? DATE_RE.exec(value) : null;
  if (m) {
    const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
    if (d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3])) return d;
  }
  throw new GraphQLError(`Date must be a calendar date YYYY-MM-DD; got ${JSON.stringify(value)}`);
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * `d.toISOString()`, the same text, about twice as fast for years 0 to 9999 (Date's own method is
 * the slowest part of printing a row's created_at and updated_at); other years and invalid dates
 * go to toISOString.
 */
export function formatInstant(d: Date): string {
  const year = d.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) return d.toISOString();
  return `${year}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}T${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}.${pad3(d.getUTCMilliseconds())}Z`;
}

/** YYYY-MM-DD of a date (UTC), as `d.toISOString().slice(0, 10)` gives it. */
export function formatDate(d: Date): string {
  const year = d.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) return d.toISOString().slice(0, 10);
  return `${year}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
}

export const DateScalar = new GraphQLScalarType({
  name: 'Date',
  description: 'A calendar date, YYYY-MM-DD.',
  serialize: (v) => (v instanceof Date ? formatDate(v) : String(v)),
  parseValue: parseDateString,
  parseLiteral: (ast) => parseDateString(ast.kind === Kind.STRING ? ast.value : undefined),
});

function parseDateTime(value: unknown): Date {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) {
    const d = new Date(value);
    if (!Number.isNaN(d.getTime())) return d;
  }
  throw new GraphQLError(`DateTime must be ISO 8601 with a time zone, e.g. 2026-01-31T12:00:00Z; got ${JSON.stringify(value)}`);
}

export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  description: 'An instant, ISO 8601 in UTC (e.g. 2026-01-31T12:00:00.000Z).',
  serialize: (v) => (v instanceof Date ? formatInstant(v) : String(v)),
  parseValue: parseDateTime,
  parseLiteral: (ast) => parseDateTime(ast.kind === Kind.STRING ? ast.value : undefined),
});

function literalToJson(ast: ValueNode, variables?: Record<string, unknown> | null): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return ast.values.map((v) => literalToJson(v, variables));
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, literalToJson(f.value, variables)]));
    case Kind.VARIABLE:
      return variables?.[ast.name.value];
    default:
      throw new GraphQLError('Invalid JSON literal');
  }
}

/** Strict base64 (RFC 4648 §4, padding required): what FileContent takes as text. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function decodeBase64(text: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  if (!BASE64.test(compact)) throw new GraphQLError('FileContent must be the file as base64 (RFC 4648, with padding)');
  return Buffer.from(compact, 'base64');
}

/**
 * An upload the REST adapter wrote to a temporary file instead of memory (an operation whose
 * `multipart.toDisk` says so: the SAF-T import's files of up to 100 MB): the FileContent variable
 * it builds in-process is then this, and the service reads the file by its path. The adapter
 * removes the file when the request ends; a service that keeps it copies or moves it first.
 */
export class SpooledUpload {
  constructor(
    readonly path: string,
    readonly size: number,
  ) {}
}

/** A FileContent argument of an operation that spools nothing (its bytes are in memory). */
export function inMemory(content: Buffer | SpooledUpload): Buffer {
  if (content instanceof SpooledUpload) throw new Error('This operation takes its file in memory, not spooled to disk');
  return content;
}

/**
 * A file's bytes, input only: base64 text where the request is JSON (GraphQL variables and literals,
 * MCP arguments, whose bodies are limited to 1 MB); the REST adapter hands a multipart upload's
 * bytes over as they are (a Buffer in the variables it builds in-process), so a 25 MB file is never
 * base64 text.
 */
export const FileContentScalar = new GraphQLScalarType<Buffer | SpooledUpload, never>({
  name: 'FileContent',
  description: 'The bytes of a file as base64 (RFC 4648 with padding). Input only.',
  serialize: () => {
    throw new GraphQLError('FileContent is an input type');
  },
  parseValue: (v) => {
    if (Buffer.isBuffer(v) || v instanceof SpooledUpload) return v;
    if (typeof v === 'string') return decodeBase64(v);
    throw new GraphQLError('FileContent must be a base64 string');
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('FileContent must be a base64 string');
    return decodeBase64(ast.value);
  },
});

export const JsonScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value.',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: literalToJson,
});

/**
 * `d.toFixed(scale)`, the same text, about three times faster for a value that already has at most
 * `scale` decimals (every value read from a column of that scale): its plain digits padded with
 * zeros. Anything else (more decimals to round, exponent notation, negative zero) goes to toFixed.
 */
export function formatFixed(d: Decimal, scale: number): string {
  const text = d.toString();
  const dot = text.indexOf('.');
  const decimals = dot < 0 ? 0 : text.length - dot - 1;
  if (decimals > scale || text.includes('e') || (text[0] === '-' && d.isZero())) return d.toFixed(scale);
  if (decimals === scale) return text;
  return (dot < 0 ? `${text}.` : text) + '0'.repeat(scale - decimals);
}

/** Resolver for a Decimal column: fixed scale, so "100" prints as "100.000000" for Decimal(18, 6). */
export function fixed<K extends string>(key: K, scale: number) {
  return (parent: { [P in K]: Decimal }): string => formatFixed(parent[key], scale);
}

/** An amount in a currency at that currency's decimals (NOK 2, JPY 0), e.g. a Decimal(18, 3) `_fc` column. */
export function inCurrency(value: Decimal, currencyCode: string): string {
  const scale = minorUnitsOf(currencyCode);
  return formatFixed(value.toDecimalPlaces(scale), scale);
}

/** The same for a nullable Decimal column. */
export function fixedOrNull<K extends string>(key: K, scale: number) {
  return (parent: { [P in K]: Decimal | null }): string | null => {
    const value = parent[key];
    return value === null ? null : formatFixed(value, scale);
  };
}
