import { getNullableType, isListType, type GraphQLObjectType } from 'graphql';
import type { CompiledOperation } from '../../rest-adapter/compile.ts';
import { DECIMAL_INPUT_HINT, DECIMAL_OUTPUT_HINT, INT32, responseSchema, SchemaComponents, type JsonSchema } from '../openapi/json-schema.ts';

/**
 * The JSON Schemas a tool shows a model: the wire schemas of the OpenAPI document (json-schema.ts,
 * one source), made compact. tools/list is read into a model's context on every turn, so what says
 * nothing goes: the int32 bounds of every integer (403 of them in the full list), the decimal hint
 * repeated on every amount (the server's instructions say it once). No tool's input repeats an object
 * shape, so input schemas have no `$defs`; an output schema's shared shapes are `$defs` entries (the
 * OpenAPI components of its answer), and tools/list shows its outline (`outlineSchema`).
 */

/** The short form of the decimal hint on a tool's input (the full rule is in the server's instructions). */
export const DECIMAL_TOOL_HINT = 'decimal string';

/** An input or output schema without the int32 bounds and with the short decimal hint. */
export function compactSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(compactSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema as JsonSchema)) {
    if ((key === 'minimum' && value === INT32.minimum) || (key === 'maximum' && value === INT32.maximum)) continue;
    if (key === 'description' && typeof value === 'string') {
      const text = shortHint(value);
      if (text) out.description = text;
      continue;
    }
    // property names are data, not keywords: walk their schemas
    out[key] = key === 'properties' || key === '$defs' ? Object.fromEntries(Object.entries(value as JsonSchema).map(([k, v]) => [k, compactSchema(v)])) : compactSchema(value);
  }
  return out;
}

function shortHint(text: string): string {
  if (text === DECIMAL_INPUT_HINT) return DECIMAL_TOOL_HINT;
  if (text === DECIMAL_OUTPUT_HINT) return ''; // its pattern says it
  return text.replace(` (${DECIMAL_INPUT_HINT})`, `; ${DECIMAL_TOOL_HINT}`).replace(` (${DECIMAL_OUTPUT_HINT})`, '');
}

/** A tool's input schema as describe_operation shows it. */
export const toolInputSchema = (schema: JsonSchema): JsonSchema => compactSchema(schema) as JsonSchema;

/** The longest field description tools/list shows; a longer one is cut after its first sentence or here (describe_operation has it whole). */
export const BRIEF_DESCRIPTION = 120;

/** A description cut to its first sentence, at most BRIEF_DESCRIPTION characters. */
export function briefText(text: string): string {
  if (text.length <= BRIEF_DESCRIPTION) return text;
  const sentence = /^(.{20,}?\.)\s/.exec(text)?.[1];
  if (sentence && sentence.length <= BRIEF_DESCRIPTION) return `${sentence} …`;
  return `${text.slice(0, BRIEF_DESCRIPTION - 2).replace(/\s+\S*$/, '')} …`;
}

/** A schema as tools/list shows it: every description brief (describe_operation shows the whole schema). */
export function briefSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(briefSchema);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema as JsonSchema).map(([k, v]) => [
      k,
      k === 'description' && typeof v === 'string' ? briefText(v) : k === 'properties' || k === '$defs' ? Object.fromEntries(Object.entries(v as JsonSchema).map(([p, x]) => [p, briefSchema(x)])) : briefSchema(v),
    ]),
  );
}

/**
 * A tool's output schema: the OpenAPI response schema of its operation (the JSON body REST answers),
 * its shared shapes in `$defs`. MCP wants an object: a body that is not one (an array, a body that is
 * a record or {}) is wrapped as `{result: body}` — `wrapped` says so, and structuredContent is
 * wrapped the same way.
 */
export function toolOutputSchema(compiled: CompiledOperation, root: GraphQLObjectType): { schema: JsonSchema; wrapped: boolean } {
  const components = new SchemaComponents(new Set(['PageMeta']), '#/$defs/');
  const body = compiled.op.status === 204 ? { type: 'object', additionalProperties: false, description: 'An empty object' } : responseSchema(compiled, root, components);
  const wrapped = body.type !== 'object';
  const schema: JsonSchema = wrapped ? { type: 'object', properties: { result: body }, required: ['result'], additionalProperties: false } : { ...body };
  if (Object.keys(components.schemas).length) schema.$defs = components.schemas;
  return { schema: compactSchema(schema) as JsonSchema, wrapped };
}

/**
 * Object levels an outline shows with their properties: the answer's own keys (a list's `data` and
 * `meta`, a record's fields; the `{result}` wrapper is no level).
 */
export const OUTLINE_DEPTH = 1;

/**
 * The outline of an output schema that tools/list shows: the keys of the answer and their JSON types,
 * `depth` object levels deep (deeper objects are `{type: 'object'}`, arrays of them `{type: 'array'}`), without descriptions, patterns,
 * formats or `required` (what every answer satisfies; the full schema is describe_operation's). The
 * full schemas of the default tools alone would be some 200,000 characters.
 */
export function outlineSchema(schema: JsonSchema, depth = OUTLINE_DEPTH): JsonSchema {
  const defs = (schema.$defs ?? {}) as Record<string, JsonSchema>;
  const resolve = (s: JsonSchema): JsonSchema => (typeof s.$ref === 'string' ? resolve(defs[s.$ref.replace('#/$defs/', '')] ?? {}) : s);
  const walk = (raw: JsonSchema, level: number): JsonSchema => {
    const s = resolve(raw);
    for (const key of ['anyOf', 'oneOf'] as const) {
      if (!Array.isArray(s[key])) continue;
      const options = (s[key] as JsonSchema[]).map((o) => walk(o, level));
      // a nullable record (anyOf [record, null]): the record's outline with null allowed
      const nonNull = options.filter((o) => o.type !== 'null');
      if (nonNull.length === 1 && typeof nonNull[0].type === 'string') return { ...nonNull[0], type: [nonNull[0].type, 'null'] };
      return { [key]: options };
    }
    if (s.type === undefined) return {};
    const out: JsonSchema = { type: s.type };
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (types.includes('object') && s.properties && level < depth) out.properties = Object.fromEntries(Object.entries(s.properties as Record<string, JsonSchema>).map(([k, v]) => [k, walk(v, level + 1)]));
    if (types.includes('array') && s.items) {
      const items = walk(s.items as JsonSchema, level);
      // an array of records below the outline's depth is just an array
      if (Object.keys(items).length && !(items.type === 'object' && !items.properties)) out.items = items;
    }
    return out;
  };
  const wrapper = (schema.properties as Record<string, JsonSchema> | undefined)?.result;
  if (wrapper && Object.keys(schema.properties as object).length === 1) return { ...walk({ ...schema, $defs: undefined, properties: {} }, 0), properties: { result: walk(wrapper, 0) } };
  return walk(schema, 0);
}

/** Whether the operation's variables include `page` and `per_page` as query parameters (a paged list). */
export const isPaged = (compiled: CompiledOperation): boolean =>
  ['page', 'per_page'].every((wire) => compiled.variables.some((v) => v.source === 'query' && v.wire === wire && !isListType(getNullableType(v.type))));
