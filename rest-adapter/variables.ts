import {
  coerceInputValue,
  getNullableType,
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  isEnumType,
  isInputObjectType,
  isListType,
  type GraphQLInputType,
} from 'graphql';
import { ForbiddenError, ValidationError, type FieldIssue } from '../src/shared/errors.ts';
import { toCamel, toSnake } from '../src/shared/naming.ts';
import type { CompiledOperation, EchoIgnored, VariableSpec } from './compile.ts';
import { withDefaults, withParameter } from './operation.ts';
import { enumFromWire } from './wire-enums.ts';

/**
 * The request of an operation, from any entry point: REST (strings from the path and query string,
 * a parsed JSON body) or an MCP tool call (typed JSON arguments split the same way).
 */
export interface OperationRequest {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  /** the body came from a form (multipart/form-data): its text fields are parsed like query parameters */
  form?: boolean;
}

/** Spec 000: array parameters are one value with items separated by comma, semicolon or space. */
export function splitList(value: string): string[] {
  return value
    .split(/[,; ]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

class Issues {
  readonly list: FieldIssue[] = [];
  add(path: (string | number)[], message: string): void {
    this.list.push({ path: path.map(String), message });
  }
}

/**
 * A path or query value (a string; an MCP argument may already be typed) as its GraphQL type wants
 * it. An empty value counts as absent; the literal `null` is null for every type but String.
 */
function fromParameter(raw: unknown, type: GraphQLInputType, wire: string, issues: Issues): unknown {
  const nullable = getNullableType(type) as GraphQLInputType;
  if (isListType(nullable)) {
    // the literal null is the whole list's null (status=null: no status filter), as for other types
    if (raw === 'null') return null;
    const items = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => (typeof v === 'string' ? splitList(v) : [v]));
    if (!items.length) return undefined;
    return items.map((v) => fromParameter(v, nullable.ofType, wire, issues));
  }
  if (Array.isArray(raw)) {
    issues.add([wire], 'must be given once');
    return undefined;
  }
  if (typeof raw !== 'string') return raw;
  if (raw === '') return undefined;
  if (raw === 'null' && nullable.name !== 'String') return null;
  if (nullable === GraphQLInt) {
    if (!/^-?\d{1,15}$/.test(raw)) issues.add([wire], `must be an integer; got '${raw.slice(0, 40)}'`);
    return Number(raw);
  }
  if (nullable === GraphQLFloat) {
    if (!/^-?\d{1,15}(\.\d{1,15})?$/.test(raw)) issues.add([wire], `must be a number; got '${raw.slice(0, 40)}'`);
    return Number(raw);
  }
  if (nullable === GraphQLBoolean) {
    const v = raw.toLowerCase();
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
    issues.add([wire], `must be true or false; got '${raw.slice(0, 40)}'`);
    return undefined;
  }
  // enum values are matched without regard to case (item_type=service), by name or by the spec's spelling (a dimension type bankacc)
  if (isEnumType(nullable)) return enumFromWire(nullable, raw, true);
  return raw;
}

/**
 * A JSON body value as a GraphQL input value: object keys snake_case → camelCase, recursively along
 * the input type (JSON scalars are left untouched); unknown fields are issues naming their path.
 */
function fromJson(value: unknown, type: GraphQLInputType, path: (string | number)[], issues: Issues, ignore?: EchoIgnored): unknown {
  if (value === null || value === undefined) return value;
  const nullable = getNullableType(type) as GraphQLInputType;
  if (isListType(nullable)) {
    return Array.isArray(value) ? value.map((v, i) => fromJson(v, nullable.ofType, [...path, i], issues, ignore)) : fromJson(value, nullable.ofType, path, issues, ignore);
  }
  // an enum by its GraphQL name or the spec's spelling (a line dimension's type businesspartner)
  if (isEnumType(nullable) && typeof value === 'string') return enumFromWire(nullable, value, false);
  if (isInputObjectType(nullable) && isPlainObject(value)) {
    const fields = nullable.getFields();
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      const name = fields[key] ? key : toCamel(key);
      const field = fields[name];
      if (!field) {
        if (!ignore?.keys.has(key)) issues.add([...path, key], 'is not a known field');
        continue;
      }
      out[name] = fromJson(v, field.type, [...path, toSnake(name)], issues, ignore?.nested.get(toSnake(name)));
    }
    return out;
  }
  return value;
}

/** graphql-js coercion of one variable, every problem collected with its wire path. */
function coerce(spec: VariableSpec, value: unknown, issues: Issues): void {
  const prefix = spec.source === 'body' ? [] : [spec.wire];
  coerceInputValue(value, spec.type, (path, invalid, error) => {
    const at = [...prefix, ...path.map((p) => (typeof p === 'number' ? p : toSnake(p)))];
    const field = /Field "([^"]+)"/.exec(error.message)?.[1];
    if (field && /was not provided/.test(error.message)) issues.add([...at, toSnake(field)], 'is required');
    else if (field && /is not defined by type/.test(error.message)) issues.add([...at, toSnake(field)], 'is not a known field');
    else {
      const why = (error.originalError?.message ?? error.message).replace(/; .*$/, '');
      const shown = JSON.stringify(invalid) ?? String(invalid);
      issues.add(at.length ? at : [spec.wire], `${why} (got ${shown.length > 60 ? `${shown.slice(0, 60)}…` : shown})`);
    }
  });
}

/**
 * The variables of an operation for one request: each read from its source, converted by its type,
 * coerced by graphql-js; every problem is reported at once in one 400 naming the wire fields.
 */
export function operationVariables(compiled: CompiledOperation, request: OperationRequest): Record<string, unknown> {
  const tenant = compiled.op.tenantParameter;
  const body = request.body;
  const bodyGiven = body !== undefined && !(isPlainObject(body) && Object.keys(body).length === 0);
  // a write without a body is refused as such (400 "missing body"), not for the client account it
  // lacks; a body without client_account_id ({} included) is the spec's 403
  if (tenant && (body !== undefined || !compiled.bodyVariable || request.query[tenant] !== undefined)) {
    const raw = request.query[tenant] ?? (isPlainObject(body) ? body[tenant] : undefined);
    const value = typeof raw === 'string' ? raw.trim() : raw;
    if (!(typeof value === 'number' ? Number.isSafeInteger(value) && value > 0 : typeof value === 'string' && /^[1-9]\d{0,9}$/.test(value))) {
      throw new ForbiddenError(`${tenant} ${raw === undefined || raw === '' ? 'is missing' : 'is not a valid client account id'}: give one of your client accounts`);
    }
  }
  const issues = new Issues();
  const out: Record<string, unknown> = { ...withValues(compiled, request.query[withParameter(compiled.op)], issues) };
  if (compiled.op.bodyRequired && body === undefined) throw new ValidationError('The request body is required: send a JSON object ({} when no field is given)');
  // a body variable of a list type takes a JSON array as the body (spec 002: PUT …/notes "Body: array of notes")
  const listBody = !!compiled.bodyVariable && isListType(getNullableType(compiled.bodyVariable.type));
  if (bodyGiven && listBody && !Array.isArray(body)) throw new ValidationError('The request body must be a JSON array');
  if (bodyGiven && !listBody && !isPlainObject(body)) throw new ValidationError('The request body must be a JSON object');
  const bodyFields = new Set<string>();
  const converted: VariableSpec[] = [];
  for (const spec of compiled.variables) {
    const before = issues.list.length;
    let value: unknown;
    if (spec.source === 'path') value = fromParameter(request.params[spec.wire], spec.type, spec.wire, issues);
    else if (spec.source === 'query') value = request.query[spec.wire] === undefined ? undefined : fromParameter(request.query[spec.wire], spec.type, spec.wire, issues);
    else if (spec.source === 'body' && listBody) value = body === undefined ? undefined : fromJson(body, spec.type, [], issues, compiled.echoIgnored);
    else if (spec.source === 'body') {
      const input = fromJson(bodyGiven ? body : {}, spec.type, [], issues, compiled.echoIgnored) as Record<string, unknown>;
      for (const b of compiled.boundFields) {
        const fromPath = fromParameter(request.params[b.wire], b.type, b.wire, issues);
        if (input[b.field] !== undefined && input[b.field] !== fromPath) issues.add([toSnake(b.field)], `must be the path's ${b.wire} (${String(fromPath)}) when given`);
        input[b.field] = fromPath;
      }
      value = input;
    }
    else {
      bodyFields.add(spec.wire);
      const raw = isPlainObject(body) ? body[spec.wire] : undefined;
      if (raw === undefined) value = undefined;
      else if (request.form && (typeof raw === 'string' || Array.isArray(raw))) value = fromParameter(raw, spec.type, spec.wire, issues);
      else value = fromJson(raw, spec.type, [spec.wire], issues);
    }
    if (value === undefined) {
      if (spec.required) issues.add([spec.wire], 'is required');
      continue;
    }
    out[spec.name] = value;
    if (issues.list.length === before) converted.push(spec);
  }
  if (!compiled.bodyVariable && isPlainObject(body)) {
    for (const key of Object.keys(body)) if (!bodyFields.has(key)) issues.add([key], 'is not a known field');
  }
  for (const spec of converted) coerce(spec, out[spec.name], issues);
  if (issues.list.length) {
    throw new ValidationError(issues.list.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '), issues.list);
  }
  return out;
}

/** `with=a,b.c` as the operation's boolean variables; naming b.c includes b. */
function withValues(compiled: CompiledOperation, raw: unknown, issues: Issues): Record<string, boolean> {
  const allowed = compiled.op.with?.allowed ?? [];
  const parameter = withParameter(compiled.op);
  const on = (relations: readonly string[]) => Object.fromEntries(relations.map((r) => [compiled.withVariables.get(r)!, true]));
  if (raw === undefined) return on(withDefaults(compiled.op));
  const always = on(compiled.op.with?.always ?? []);
  if (!allowed.length) {
    issues.add([parameter], 'this endpoint has no relations to include');
    return {};
  }
  const out: Record<string, boolean> = { ...always };
  const requested = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => (typeof v === 'string' ? splitList(v) : [String(v)]));
  for (const relation of requested) {
    const r = relation.toLowerCase();
    if (!compiled.withVariables.has(r)) {
      issues.add([parameter], `unknown relation '${relation.slice(0, 60)}'; allowed: ${allowed.join(', ')}`);
      continue;
    }
    const parts = r.split('.');
    for (let i = 1; i <= parts.length; i++) out[compiled.withVariables.get(parts.slice(0, i).join('.'))!] = true;
  }
  return out;
}
