import {
  getNamedType,
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLString,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type SelectionSetNode,
} from 'graphql';
import { toSnake } from '../shared/naming.ts';
import type { CompiledOperation } from '../../rest-adapter/compile.ts';
import { wireSpelling } from '../../rest-adapter/wire-enums.ts';
import { isWireSpelled } from '../builder.ts';

/**
 * JSON Schema (2020-12, as OpenAPI 3.1 uses it) of the wire shapes, derived from the GraphQL types:
 * request bodies and parameters from an operation's variables, responses from its selection set. The
 * OpenAPI document and the MCP tools' input schemas are both built from these.
 */
export type JsonSchema = Record<string, unknown>;

export const INT32 = { type: 'integer', minimum: -2147483648, maximum: 2147483647 };

/** The hints of a Decimal's wire form (the MCP tools shorten them: src/mcp/tool-schemas.ts). */
export const DECIMAL_INPUT_HINT = 'decimal as a string, e.g. "1250.50"; a JSON number only if it has at most 15 significant digits';
export const DECIMAL_OUTPUT_HINT = 'decimal as a string, with the scale of its column';

/** The wire form of a scalar (input and output agree, except Decimal, which accepts exact JSON numbers). */
function scalarSchema(type: GraphQLNamedType, direction: 'input' | 'output', spelled = false): JsonSchema {
  if (type === GraphQLInt) return { ...INT32 };
  if (type === GraphQLFloat) return { type: 'number' };
  if (type === GraphQLBoolean) return { type: 'boolean' };
  if (type === GraphQLString || type === GraphQLID) return { type: 'string' };
  switch (type.name) {
    case 'Decimal':
      return direction === 'output'
        ? { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$', description: DECIMAL_OUTPUT_HINT }
        : { type: ['string', 'number'], description: DECIMAL_INPUT_HINT };
    case 'Date':
      return { type: 'string', format: 'date' };
    case 'DateTime':
      return { type: 'string', format: 'date-time' };
    case 'JSON':
      return {};
    case 'FileContent':
      return { type: 'string', contentEncoding: 'base64', description: 'the file as base64 (RFC 4648, with padding)' };
    default:
      // the spec's spelling where it has one: a request may use it (and GraphQL's name), a wire-spelled answer shows it
      if (isEnumType(type)) {
        const values = type.getValues();
        const wire = values.filter((v) => wireSpelling(v) !== undefined).map((v) => wireSpelling(v)!);
        if (direction === 'input' && wire.length) return { type: 'string', enum: [...wire, ...values.map((v) => v.name)] };
        if (spelled && wire.length) return { type: 'string', enum: wire };
        return { type: 'string', enum: values.map((v) => v.value as string) };
      }
      return { type: 'string' };
  }
}

/** Allows null too. */
export function orNull(schema: JsonSchema): JsonSchema {
  if (!Object.keys(schema).length) return schema; // JSON: anything
  if (typeof schema.type === 'string') {
    const out: JsonSchema = { ...schema, type: [schema.type, 'null'] };
    if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null];
    return out;
  }
  if (Array.isArray(schema.type)) return { ...schema, type: [...new Set([...schema.type, 'null'])] };
  return { anyOf: [schema, { type: 'null' }] };
}

function describe(schema: JsonSchema, description: string | null | undefined): JsonSchema {
  return description ? { ...schema, description: schema.description ? `${description} (${schema.description})` : description } : schema;
}

/** The JSON Schema of a GraphQL input type on the wire (object keys snake_case). */
export function inputSchema(type: GraphQLInputType, options: { omit?: ReadonlySet<string>; optional?: ReadonlySet<string> } = {}): JsonSchema {
  const nonNull = isNonNullType(type);
  const inner = nonNull ? type.ofType : type;
  let schema: JsonSchema;
  if (isListType(inner)) schema = { type: 'array', items: inputSchema(inner.ofType) };
  else if (isInputObjectType(inner)) {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const field of Object.values(inner.getFields())) {
      const wire = toSnake(field.name);
      if (options.omit?.has(field.name)) continue;
      properties[wire] = describe(inputSchema(field.type), field.description);
      if (isNonNullType(field.type) && field.defaultValue === undefined && !options.optional?.has(field.name)) required.push(wire);
    }
    schema = { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
  } else schema = scalarSchema(inner, 'input');
  return nonNull ? schema : orNull(schema);
}

/** A path or query parameter's value: its type without null (an omitted parameter is the absent value). */
export function parameterSchema(type: GraphQLInputType): JsonSchema {
  return inputSchema(isNonNullType(type) ? type : new GraphQLNonNull(type));
}

/**
 * Named, reusable response schemas (OpenAPI `components.schemas`). Given one, an object whose
 * selection is exactly one fragment spread (`unit { ...UnitFields }`), or whose type is listed in
 * `types` (PageMeta), becomes a `$ref`. The name is the GraphQL type's (Item, Unit, PageMeta); a
 * second, different selection on the same type takes the fragment's name without `Fields`
 * (ItemScalarFields → ItemScalar), then a number. Equal shapes share one name.
 */
export class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly json = new Map<string, string>();

  constructor(
    readonly types: ReadonlySet<string> = new Set(),
    readonly prefix = '#/components/schemas/',
  ) {}

  ref(typeName: string, fragmentName: string | undefined, schema: JsonSchema): JsonSchema {
    const text = JSON.stringify(schema);
    const candidates = [typeName, ...(fragmentName ? [fragmentName.replace(/(.)Fields$/, '$1')] : [])];
    for (const name of candidates) if (this.json.get(name) === text) return { $ref: this.prefix + name };
    let name = candidates.find((n) => !this.json.has(n));
    for (let i = 2; !name; i++) if (!this.json.has(`${typeName}${i}`) || this.json.get(`${typeName}${i}`) === text) name = `${typeName}${i}`;
    this.json.set(name, text);
    this.schemas[name] = schema;
    return { $ref: this.prefix + name };
  }
}

/** The JSON Schema of the response a selection set produces on an object type. */
export function selectionSchema(parent: GraphQLObjectType, set: SelectionSetNode, fragments: Record<string, FragmentDefinitionNode>, components?: SchemaComponents): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required = new Set<string>();
  const visit = (s: SelectionSetNode, on: GraphQLObjectType) => {
    for (const sel of s.selections) {
      if (sel.kind === Kind.FRAGMENT_SPREAD) {
        const f = fragments[sel.name.value];
        if (f) visit(f.selectionSet, on);
        continue;
      }
      if (sel.kind === Kind.INLINE_FRAGMENT) {
        visit(sel.selectionSet, on);
        continue;
      }
      const key = sel.alias?.value ?? sel.name.value;
      if (sel.name.value === '__typename') {
        properties[key] = { type: 'string' };
        required.add(key);
        continue;
      }
      const field = on.getFields()[sel.name.value];
      const schema = outputSchema(field.type, sel.selectionSet, fragments, components, isWireSpelled(field));
      // null only for a list read by cursor, which REST never does (it pages by number): the REST
      // description is the extension's (a string) or none
      const byCursor = field.extensions?.nullOnlyByCursor as string | true | undefined;
      properties[key] = byCursor ? describe(stripNull(schema), byCursor === true ? undefined : byCursor) : describe(schema, field.description);
      if (!sel.directives?.some((d) => d.name.value === 'include' || d.name.value === 'skip')) required.add(key);
    }
  };
  visit(set, parent);
  return { type: 'object', properties, required: [...required], additionalProperties: false };
}

function objectSchema(type: GraphQLObjectType, set: SelectionSetNode, fragments: Record<string, FragmentDefinitionNode>, components?: SchemaComponents): JsonSchema {
  if (!components) return selectionSchema(type, set, fragments);
  const only = set.selections.length === 1 ? set.selections[0] : undefined;
  const spread = only?.kind === Kind.FRAGMENT_SPREAD && !only.directives?.length && fragments[only.name.value] ? only.name.value : undefined;
  if (!spread && !components.types.has(type.name)) return selectionSchema(type, set, fragments, components);
  return components.ref(type.name, spread, selectionSchema(type, spread ? fragments[spread].selectionSet : set, fragments, components));
}

function outputSchema(type: GraphQLOutputType, set: SelectionSetNode | undefined, fragments: Record<string, FragmentDefinitionNode>, components?: SchemaComponents, spelled = false): JsonSchema {
  const nonNull = isNonNullType(type);
  const inner = nonNull ? type.ofType : type;
  let schema: JsonSchema;
  if (isListType(inner)) schema = { type: 'array', items: outputSchema(inner.ofType, set, fragments, components, spelled) };
  else if (isObjectType(inner) && set) schema = objectSchema(inner, set, fragments, components);
  else schema = scalarSchema(getNamedType(inner), 'output', spelled);
  return nonNull ? schema : orNull(schema);
}

/** The response body of an operation: the schema of its single top-level field (shared shapes as `$ref`s when given components). */
export function responseSchema(compiled: CompiledOperation, root: GraphQLObjectType, components?: SchemaComponents): JsonSchema {
  const empty: JsonSchema = { type: 'object', additionalProperties: false, description: 'An empty object' };
  if (compiled.op.emptyBody === 'always') return empty;
  const full = selectionSchema(root, compiled.operation.selectionSet, compiled.fragments, components);
  let result = (full.properties as Record<string, JsonSchema>)[compiled.resultKey];
  if (compiled.nodesOnly) result = (stripNull(result).properties as Record<string, JsonSchema>).nodes;
  // a lookup is null in GraphQL only beside its error (a missing or forbidden record), which REST
  // answers as that error's status
  if (compiled.op.emptyBody !== 'whenNull') result = stripNull(result);
  if (compiled.op.omitWhenNull) result = optionalWhenNull(result, compiled.op.omitWhenNull);
  if (compiled.op.numbers) result = numbersAt(result, compiled.op.numbers, `${compiled.op.method} ${compiled.op.path}`);
  return compiled.op.emptyBody === 'whenNull' ? { oneOf: [stripNull(result), empty] } : result;
}

/** An operation's omitWhenNull keys: not required, and never null when present (of an inline object, each element of a list of them, or each row of its `data` list). */
function optionalWhenNull(schema: JsonSchema, keys: readonly string[]): JsonSchema {
  if (schema.type === 'array' && schema.items) return { ...schema, items: optionalWhenNull(schema.items as JsonSchema, keys) };
  if (schema.type !== 'object' || !schema.properties) return schema;
  const data = (schema.properties as Record<string, JsonSchema>).data;
  if (data && stripNull(data).type === 'array') return { ...schema, properties: { ...(schema.properties as Record<string, JsonSchema>), data: optionalWhenNull(stripNull(data), keys) } };
  const properties = { ...(schema.properties as Record<string, JsonSchema>) };
  for (const key of keys) if (properties[key]) properties[key] = stripNull(properties[key]);
  return { ...schema, properties, required: ((schema.required as string[] | undefined) ?? []).filter((k) => !keys.includes(k)) };
}

/**
 * An operation's `numbers` keys: JSON numbers where the GraphQL field is a Decimal string (of an
 * inline object, or each element of a list of them). A key it cannot place throws at build.
 */
function numbersAt(schema: JsonSchema, keys: readonly string[], where: string): JsonSchema {
  if (schema.type === 'array' && schema.items) return { ...schema, items: numbersAt(schema.items as JsonSchema, keys, where) };
  const properties = { ...((schema.properties ?? {}) as Record<string, JsonSchema>) };
  for (const key of keys) {
    const was = properties[key];
    if (!was || !String(was.type).startsWith('string')) throw new Error(`operation ${where}: numbers names '${key}', which is no Decimal field of the answer's rows`);
    const number: JsonSchema = { type: 'number', description: 'a decimal as a JSON number, written with its exact digits (e.g. 1250.50)' };
    properties[key] = Array.isArray(was.type) && was.type.includes('null') ? orNull(number) : number;
  }
  return { ...schema, properties };
}

/** The request body of an operation: its body variable's input object, fields the path binds optional. */
export function requestBodySchema(compiled: CompiledOperation): JsonSchema | undefined {
  if (compiled.bodyVariable) {
    const optional = new Set(compiled.boundFields.map((b) => b.field));
    const schema = inputSchema(compiled.bodyVariable.type, { optional });
    if (compiled.echoIgnored.keys.size) {
      // PUT: fields a client echoes back from a GET are accepted and ignored
      const props = { ...(schema.properties as Record<string, JsonSchema>) };
      for (const key of compiled.echoIgnored.keys) props[key] = { description: 'read-only: ignored when sent back' };
      return { ...schema, properties: props };
    }
    return schema;
  }
  const fields = compiled.variables.filter((v) => v.source === 'body-field');
  if (!fields.length) return undefined;
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map((v) => [v.wire, inputSchema(v.type)])),
    required: fields.filter((v) => v.required).map((v) => v.wire),
    additionalProperties: false,
  };
}

/** A schema without its `null` alternative (a nullable result that the REST body shows as `{}` instead). */
function stripNull(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.type)) {
    const types = (schema.type as string[]).filter((t) => t !== 'null');
    return { ...schema, type: types.length === 1 ? types[0] : types };
  }
  if (Array.isArray(schema.anyOf)) {
    const rest = (schema.anyOf as JsonSchema[]).filter((s) => s.type !== 'null');
    return rest.length === 1 ? rest[0] : { ...schema, anyOf: rest };
  }
  return schema;
}
