import {
  getDirectiveValues,
  getArgumentValues,
  getNamedType,
  getNullableType,
  getVariableValues,
  GraphQLError,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isObjectType,
  isUnionType,
  Kind,
  Lexer,
  parse,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  Source,
  TokenKind,
  TypeNameMetaFieldDef,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Request } from 'express';
import type { Plugin } from 'graphql-yoga';
import { QueryTooComplexError, ServiceUnavailableError, type QueryLimitName } from './errors.ts';
import { weigh } from '../http/admission.ts';
import type { PageLimits } from './pagination.ts';

/**
 * Limits on the GraphQL documents clients write (/graphql, the MCP graphql_query and
 * graphql_mutation tools), checked on the parsed document before GraphQL's own validation and
 * before anything executes, so a refused query costs milliseconds:
 *
 * - tokens and bracket nesting: checked before the document is parsed, so the size of everything
 *   below is bounded before it is measured, and the parser never recurses deep;
 * - depth: fields on the longest path, the leaf included (`{ me { user { id } } }` is 3 deep);
 * - aliases and fields: counted with every fragment expanded where it is spread;
 * - a list inside itself: a list field may appear only once on a path. Every cycle of the schema
 *   that multiplies (ItemCollection.entries → ItemCollectionEntry.itemCollection → entries …,
 *   ClientAccount.servedAccounts → providers → servedAccounts …, __Type.fields → type → fields …)
 *   passes through a list field, so no cycle can be walked twice, whatever the schema adds later;
 * - cost: the number of objects the query may return. An object field counts 1, a list counts its
 *   length times (1 + its selection): a page field's `nodes` hold `perPage` records (clamped as the
 *   service clamps it, see `pageCost`), any other list ASSUMED_LIST_SIZE unless its field declares a
 *   bound (`listCost`); introspection lists count the schema's average length. Scalars are free (the
 *   field limit bounds them).
 *
 * A refused query is a 400 with `extensions.code` `common.query_too_complex` and
 * `extensions.limit` `{name, max, actual}`. The REST operation documents are fixed and run without
 * this check; a test keeps every one of them, with all its `with` relations, within the defaults.
 */
export interface QueryLimits {
  maxTokens: number;
  maxDepth: number;
  maxAliases: number;
  maxFields: number;
  maxCost: number;
}

export const DEFAULT_QUERY_LIMITS: QueryLimits = {
  // the largest REST document has 450 tokens, GraphiQL's introspection query about 250
  maxTokens: 2_000,
  // GraphiQL's introspection query is 15 deep (nine nested ofType); REST documents at most 5
  maxDepth: 15,
  // REST documents rename every field to snake_case: up to 63 aliases
  maxAliases: 100,
  // the introspection query selects 230 fields, REST documents up to 96
  maxFields: 1_000,
  // GET /item-collections?per_page=100 with every `with` relation: see the REST documents' test
  maxCost: 250_000,
};

/** The length assumed for a list without pages whose field declares no bound: one full page. */
export const ASSUMED_LIST_SIZE = 100;

/** What a field declares about its cost, in its `extensions.queryCost`. */
interface FieldCost {
  /** a page-based list field: its page's `nodes` hold `perPage` records, clamped by these limits */
  page?: PageLimits;
  /** the argument that asks for the page size, where it is not `perPage` (an offset list's `limit`) */
  sizeArgument?: string;
  /** an unpaginated list field whose length the domain bounds */
  listSize?: number;
}

/**
 * `extensions` of a page-based list field (items, units, …): the same limits its service applies;
 * `sizeArgument` names the argument asking for the size where it is not `perPage` (`limit`).
 */
export const pageCost = (page: PageLimits, sizeArgument?: string) => ({ queryCost: { page, ...(sizeArgument ? { sizeArgument } : {}) } satisfies FieldCost });

/** `extensions` of an unpaginated list field whose length the domain bounds (e.g. one address per type). */
export const listCost = (listSize: number) => ({ queryCost: { listSize } satisfies FieldCost });

const costOf = (field: GraphQLField<unknown, unknown>): FieldCost | undefined => field.extensions?.queryCost as FieldCost | undefined;

/** What the check found of one operation. */
export interface QueryMeasure {
  depth: number;
  aliases: number;
  fields: number;
  cost: number;
  /** list fields (`Type.field`) selected anywhere inside */
  lists: ReadonlySet<string>;
  /** a list field selected inside itself, if any */
  nested?: string;
}

const NO_LISTS: ReadonlySet<string> = new Set();
const NOTHING: QueryMeasure = { depth: 0, aliases: 0, fields: 0, cost: 0, lists: NO_LISTS };

function union(a: ReadonlySet<string>, b: ReadonlySet<string>): ReadonlySet<string> {
  if (!b.size || a === b) return a;
  if (!a.size) return b;
  const out = new Set(a);
  for (const x of b) out.add(x);
  return out;
}

/** Siblings: depth is the deepest, the rest adds up. */
const beside = (a: QueryMeasure, b: QueryMeasure): QueryMeasure => ({
  depth: Math.max(a.depth, b.depth),
  aliases: a.aliases + b.aliases,
  fields: a.fields + b.fields,
  cost: a.cost + b.cost,
  lists: union(a.lists, b.lists),
  nested: a.nested ?? b.nested,
});

/** The field a selection names on its parent type, the introspection meta fields included. */
function fieldOf(schema: GraphQLSchema, parent: GraphQLNamedType, name: string): GraphQLField<unknown, unknown> | undefined {
  if (name === TypeNameMetaFieldDef.name) return TypeNameMetaFieldDef;
  if (parent === schema.getQueryType()) {
    if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
    if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
  }
  return isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
}

const introspectionSizes = new WeakMap<GraphQLSchema, Map<string, number>>();

/**
 * Introspection is answered from memory, so its lists count what this schema actually has: the
 * number of types and directives, and the average length of the other lists (fields per type, args
 * per field …), so that the standard introspection query costs about what it returns.
 */
function introspectionSize(schema: GraphQLSchema, coordinate: string): number | undefined {
  let sizes = introspectionSizes.get(schema);
  if (!sizes) {
    const types = Object.values(schema.getTypeMap());
    const directives = schema.getDirectives();
    const total = { fields: 0, args: 0, inputFields: 0, enumValues: 0, interfaces: 0, possibleTypes: 0 };
    for (const t of types) {
      if (isObjectType(t) || isInterfaceType(t)) {
        const fields = Object.values(t.getFields());
        total.fields += fields.length;
        total.args += fields.reduce((n, f) => n + f.args.length, 0);
        total.interfaces += t.getInterfaces().length;
      }
      if (isInterfaceType(t) || isUnionType(t)) total.possibleTypes += schema.getPossibleTypes(t).length;
      if (isInputObjectType(t)) total.inputFields += Object.keys(t.getFields()).length;
      if (isEnumType(t)) total.enumValues += t.getValues().length;
    }
    const average = (n: number, over: number) => Math.max(1, Math.ceil(n / Math.max(1, over)));
    sizes = new Map([
      ['__Schema.types', types.length],
      ['__Schema.directives', directives.length],
      ['__Type.fields', average(total.fields, types.length)],
      ['__Type.interfaces', average(total.interfaces, types.length)],
      ['__Type.possibleTypes', average(total.possibleTypes, types.length)],
      ['__Type.enumValues', average(total.enumValues, types.length)],
      ['__Type.inputFields', average(total.inputFields, types.length)],
      ['__Field.args', average(total.args, total.fields)],
      ['__Directive.args', average(directives.reduce((n, d) => n + d.args.length, 0), directives.length)],
    ]);
    introspectionSizes.set(schema, sizes);
  }
  return sizes.get(coordinate);
}

/**
 * Measures one operation. Fragments are measured once per spread context (memoized), so a
 * document whose fragments spread each other twice over is measured in linear time and its
 * expanded size is reported exactly; a fragment cycle (refused later by validation) counts nothing.
 * Selections under unknown types or fields count as leaves: validation reports them.
 */
class Measurer {
  private readonly fragments = new Map<string, FragmentDefinitionNode>();
  private readonly memo = new Map<string, QueryMeasure>();
  private readonly active = new Set<string>();

  constructor(
    private readonly schema: GraphQLSchema,
    document: DocumentNode,
    private readonly variables: Record<string, unknown>,
  ) {
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) this.fragments.set(d.name.value, d);
  }

  operation(op: OperationDefinitionNode): QueryMeasure {
    const root = this.schema.getRootType(op.operation);
    return root ? this.selectionSet(op.selectionSet, root) : NOTHING;
  }

  /** `pageSize`: set when this is the selection of a page field, for its `nodes` list. */
  private selectionSet(set: SelectionSetNode, type: GraphQLNamedType, pageSize?: number): QueryMeasure {
    let measure = NOTHING;
    for (const s of set.selections) {
      if (!this.included(s)) continue;
      if (s.kind === Kind.FIELD) measure = beside(measure, this.field(s, type, pageSize));
      else if (s.kind === Kind.INLINE_FRAGMENT) {
        const on = s.typeCondition ? this.schema.getType(s.typeCondition.name.value) : type;
        if (on) measure = beside(measure, this.selectionSet(s.selectionSet, on, pageSize));
      } else measure = beside(measure, this.spread(s.name.value, pageSize));
    }
    return measure;
  }

  private spread(name: string, pageSize: number | undefined): QueryMeasure {
    const key = `${name}|${pageSize ?? ''}`;
    const known = this.memo.get(key);
    if (known) return known;
    const fragment = this.fragments.get(name);
    const on = fragment && this.schema.getType(fragment.typeCondition.name.value);
    if (!on || this.active.has(key)) return NOTHING;
    this.active.add(key);
    const measure = this.selectionSet(fragment.selectionSet, on, pageSize);
    this.active.delete(key);
    this.memo.set(key, measure);
    return measure;
  }

  private field(node: FieldNode, parent: GraphQLNamedType, pageSize: number | undefined): QueryMeasure {
    const self = { depth: 1, aliases: node.alias ? 1 : 0, fields: 1, cost: 0, lists: NO_LISTS };
    const field = fieldOf(this.schema, parent, node.name.value);
    const type = field && getNamedType(field.type);
    if (!field || !node.selectionSet || !isCompositeType(type)) return self;
    const args = this.args(field, node);
    const inner = this.selectionSet(node.selectionSet, type, this.pageSizeOf(field, args));
    const measure: QueryMeasure = {
      depth: 1 + inner.depth,
      aliases: self.aliases + inner.aliases,
      fields: 1 + inner.fields,
      cost: 1 + inner.cost,
      lists: inner.lists,
      nested: inner.nested,
    };
    if (!isListType(getNullableType(field.type))) return measure;
    const coordinate = `${parent.name}.${field.name}`;
    const length = pageSize ?? costOf(field)?.listSize ?? introspectionSize(this.schema, coordinate) ?? ASSUMED_LIST_SIZE;
    return {
      ...measure,
      cost: length * measure.cost,
      lists: union(inner.lists, new Set([coordinate])),
      nested: measure.nested ?? (inner.lists.has(coordinate) ? coordinate : undefined),
    };
  }

  /** The records per page a page field asks for, as its service clamps them. */
  private pageSizeOf(field: GraphQLField<unknown, unknown>, args: Record<string, unknown>): number | undefined {
    const page = costOf(field)?.page;
    const size = args[costOf(field)?.sizeArgument ?? 'perPage'];
    const asked = typeof size === 'number' ? size : undefined;
    if (page) return Math.max(1, Math.min(asked ?? page.defaultPerPage, page.maxPerPage));
    // a page field that declares no limits (a test keeps there being none): what it asks for
    return field.args.some((a) => a.name === 'perPage') ? Math.max(1, asked ?? ASSUMED_LIST_SIZE) : undefined;
  }

  private args(field: GraphQLField<unknown, unknown>, node: FieldNode): Record<string, unknown> {
    try {
      return getArgumentValues(field, node, this.variables);
    } catch {
      return {}; // invalid arguments: validation or execution refuses them
    }
  }

  /** @skip and @include, as execution will apply them. */
  private included(node: SelectionNode): boolean {
    if (!node.directives?.length) return true;
    try {
      if (getDirectiveValues(GraphQLSkipDirective, node, this.variables)?.if === true) return false;
      return getDirectiveValues(GraphQLIncludeDirective, node, this.variables)?.if !== false;
    } catch {
      return true;
    }
  }
}

/** The request a document came with: its variables decide page sizes and @include. */
export interface QueryRequest {
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/** Measures the operation the request selects (every operation when it names none). */
export function measureQuery(schema: GraphQLSchema, document: DocumentNode, request: QueryRequest = {}): QueryMeasure[] {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION && (!request.operationName || d.name?.value === request.operationName),
  );
  return operations.map((op) => {
    // variables that do not coerce count as absent: execution refuses the request anyway
    const coerced = getVariableValues(schema, op.variableDefinitions ?? [], request.variables ?? {});
    return new Measurer(schema, document, coerced.coerced ?? {}).operation(op);
  });
}

const shown = (n: number) => (n >= Number.MAX_SAFE_INTEGER ? 'more than 9,007,199,254,740,991' : Math.round(n).toLocaleString('en-US'));

function refusal(name: QueryLimitName, actual: number, max: number, message: string): GraphQLError {
  const error = new QueryTooComplexError(message, { name, max, actual: Math.min(actual, Number.MAX_SAFE_INTEGER) });
  // no originalError: the error is shown as built here, on /graphql as on MCP
  return new GraphQLError(error.message, { extensions: { code: error.code, http: { status: error.status }, limit: error.limit } });
}

/** Every limit the request's operation exceeds, as GraphQL errors (empty when it is within all). */
export function queryLimitErrors(schema: GraphQLSchema, document: DocumentNode, limits: QueryLimits, request: QueryRequest = {}): GraphQLError[] {
  return checkQuery(schema, document, limits, request).errors;
}

/** The limits' check, and the cost of the costliest operation measured (what admission control weighs). */
export function checkQuery(schema: GraphQLSchema, document: DocumentNode, limits: QueryLimits, request: QueryRequest = {}): { errors: GraphQLError[]; cost: number } {
  const errors: GraphQLError[] = [];
  let cost = 0;
  for (const m of measureQuery(schema, document, request)) {
    cost = Math.max(cost, m.cost);
    if (m.depth > limits.maxDepth) errors.push(refusal('depth', m.depth, limits.maxDepth, `The query nests ${m.depth} fields deep; at most ${limits.maxDepth} are allowed`));
    if (m.aliases > limits.maxAliases) errors.push(refusal('aliases', m.aliases, limits.maxAliases, `The query has ${shown(m.aliases)} aliases; at most ${limits.maxAliases} are allowed`));
    if (m.fields > limits.maxFields) {
      errors.push(refusal('fields', m.fields, limits.maxFields, `The query selects ${shown(m.fields)} fields (fragments counted where they are spread); at most ${shown(limits.maxFields)} are allowed`));
    }
    if (m.nested) {
      errors.push(refusal('nested_list', 2, 1, `The query selects the list ${m.nested} inside itself; a list may appear only once on a path (query the inner records separately)`));
    }
    if (m.cost > limits.maxCost) {
      errors.push(
        refusal('cost', m.cost, limits.maxCost, `The query may return ${shown(m.cost)} objects (page sizes, and ${ASSUMED_LIST_SIZE} for a list without pages, multiplied along each path); at most ${shown(limits.maxCost)} are allowed: ask for smaller pages or fewer nested lists`),
      );
    }
  }
  return { errors, cost };
}

/**
 * The slots of its user's share in admission control (src/http/admission.ts) a query of this
 * cost holds while it runs: one up to `heavyCost` (GRAPHQL_HEAVY_COST), then one per `heavyCost`
 * begun (the gate caps it at the share). 0 turns weighing off.
 */
export const queryWeight = (cost: number, heavyCost: number): number => (heavyCost > 0 && cost > heavyCost ? Math.ceil(cost / heavyCost) : 1);

/**
 * Waits until the request holds `weight` slots; a turn that does not come in time is the gate's
 * 503 as a GraphQL error (`common.unavailable`, Retry-After), as /graphql answers its other 503s.
 */
export async function weighQuery(req: Request, weight: number): Promise<void> {
  try {
    await weigh(req, weight);
  } catch (e) {
    if (!(e instanceof ServiceUnavailableError)) throw e;
    throw new GraphQLError(e.message, { extensions: { code: e.code, http: { status: e.status, headers: e.headers } } });
  }
}

/**
 * Brackets (`{`, `[`, `(`) nested deeper than this are refused before the document is parsed:
 * graphql-js' parser recurses once per level and overflows the stack near 2,000 levels, whatever
 * the token limit allows. No query needs half of it (15 levels of fields, JSON values nested up to
 * 32 in src/http/input-guard.ts).
 */
export const MAX_NESTING = 64;

/**
 * Names (fields, arguments, types, enum values, variables, aliases) longer than this are refused
 * before parsing. No name of the schema comes near it, and graphql-js answers an unknown name with a
 * "Did you mean …?" that turns the name into an array of its characters: a 1 MB name cost some 40 ms
 * of CPU per request.
 */
export const MAX_NAME_LENGTH = 256;

const OPENING = new Set<TokenKind>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSING = new Set<TokenKind>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/**
 * What can be refused before parsing: more than `maxTokens` tokens (counted as graphql-js' parser
 * counts them: comments are no tokens), brackets nested deeper than MAX_NESTING or a name longer than
 * MAX_NAME_LENGTH. Lexing stops at the first token over a limit; a document that does not lex is left
 * to the parser, which reports where.
 */
export function checkSource(source: string, limits: Pick<QueryLimits, 'maxTokens'>): void {
  const lexer = new Lexer(new Source(source));
  let tokens = 0;
  let nesting = 0;
  let longName = 0;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      if (++tokens > limits.maxTokens) break;
      if (OPENING.has(token.kind) && ++nesting > MAX_NESTING) break;
      if (CLOSING.has(token.kind)) nesting--;
      if (token.kind === TokenKind.NAME && token.value.length > MAX_NAME_LENGTH) {
        longName = token.value.length;
        break;
      }
    }
  } catch {
    return;
  }
  if (longName) throw refusal('name_length', longName, MAX_NAME_LENGTH, `The query has a name of ${shown(longName)} characters; names have at most ${MAX_NAME_LENGTH}`);
  if (tokens > limits.maxTokens) {
    throw refusal('tokens', tokens, limits.maxTokens, `The query has more than ${shown(limits.maxTokens)} tokens, the most a query may have`);
  }
  if (nesting > MAX_NESTING) throw refusal('nesting', nesting, MAX_NESTING, `The query nests brackets more than ${MAX_NESTING} levels deep, the most a query may`);
}

/** graphql-js' parse after `checkSource`. */
export function parseQuery(source: string, limits: Pick<QueryLimits, 'maxTokens'>): DocumentNode {
  checkSource(source, limits);
  return parse(source);
}

/**
 * The yoga plugin: the token and nesting limits before yoga parses the document, the others before
 * GraphQL's own validation. Both throw: yoga answers a parse or validation error with 200 to a
 * client that accepts application/json (GraphQL over HTTP's legacy rule), a thrown error with its
 * status; and yoga's validation cache, keyed by the document alone, never keeps a refusal that
 * depends on the variables. With `heavyCost`, a query costing more waits before it executes until it
 * holds its weight (`queryWeight`) in admission control.
 */
export function queryLimitsPlugin(limits: QueryLimits, options: { heavyCost?: number } = {}): Plugin {
  /** the measured cost, by the express request (yoga's context holds it as `req`) */
  const costs = new WeakMap<object, number>();
  return {
    onParams({ params }) {
      if (typeof params.query === 'string') checkSource(params.query, limits);
    },
    onValidate({ params, context }) {
      const { params: request = {}, req } = context as { params?: QueryRequest; req?: Request };
      const { errors, cost } = checkQuery(params.schema, params.documentAST, limits, request);
      if (errors.length) throw errors.length === 1 ? errors[0] : new AggregateError(errors, errors.map((e) => e.message).join('; '));
      if (req) costs.set(req, cost);
    },
    async onExecute({ args }) {
      const req = (args.contextValue as { req?: Request }).req;
      const weight = req ? queryWeight(costs.get(req) ?? 0, options.heavyCost ?? 0) : 1;
      if (weight > 1) await weighQuery(req!, weight);
    },
  };
}
