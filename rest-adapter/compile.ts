import {
  getNamedType,
  isInputObjectType,
  isNonNullType,
  Kind,
  parse,
  typeFromAST,
  validate,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type VariableDefinitionNode,
} from 'graphql';
import { toSnake } from '../src/shared/naming.ts';
import { needsWrite, withDefaults, withVariable, type Operation } from './operation.ts';
import { wireSpelledPaths, type WireSpelledPath } from './wire-enums.ts';

/** Where a variable's value comes from on the wire. */
export type VariableSource = 'path' | 'query' | 'body' | 'body-field';

export interface VariableSpec {
  /** GraphQL variable name (camelCase) */
  name: string;
  /** wire name (snake_case), the path/query parameter or body field */
  wire: string;
  source: VariableSource;
  type: GraphQLInputType;
  required: boolean;
}

export interface CompiledOperation {
  op: Operation;
  /** the document with the `$with_*` variables declared and shared fragments de-duplicated */
  document: DocumentNode;
  operation: OperationDefinitionNode;
  fragments: Record<string, FragmentDefinitionNode>;
  isMutation: boolean;
  /**
   * The operation needs the `write` scope: a POST, PUT, PATCH or DELETE (`needsWrite`), whose
   * document is then a mutation. The REST route, the MCP tool's readOnlyHint and the OpenAPI
   * security all read this, never `isMutation`.
   */
  needsWrite: boolean;
  /** MCP tool name: the operation's name in snake_case (ListItems -> list_items) */
  toolName: string;
  /** response key of the single top-level field: its value is the response body */
  resultKey: string;
  /**
   * the body is the `nodes` of the connection the field answers: a document that selects nothing
   * but `nodes` of a connection answers the bare array its REST path documents
   */
  nodesOnly: boolean;
  variables: VariableSpec[];
  /** the variable that takes the whole JSON body, if any */
  bodyVariable?: VariableSpec;
  /** fields of the body's input object that a path parameter gives (`names: {'input.x': 'id'}`) */
  boundFields: { field: string; wire: string; type: GraphQLInputType }[];
  /** `with` relations as their variable names */
  withVariables: Map<string, string>;
  /**
   * PUT/PATCH (and a POST that `updates`): response fields a client may echo back from a GET (id,
   * created_at, embedded relations …) that are no input field: ignored in the body instead of rejected.
   */
  echoIgnored: EchoIgnored;
  /** enum fields of the answer the spec spells otherwise than GraphQL (`wireSpelled`): written in the spec's spelling */
  wireSpelled: WireSpelledPath[];
}

/**
 * The response keys a client may send back in an update that are no input field, at each level of
 * the body: `keys` at this level, `nested` under an input field that is itself an object or a list
 * of objects (a journal entry's `lines` sent back as they were read: their `id`, `account_code`,
 * `reconciled_amount` … are ignored, not refused).
 */
export interface EchoIgnored {
  keys: ReadonlySet<string>;
  nested: ReadonlyMap<string, EchoIgnored>;
}

const NOTHING_IGNORED: EchoIgnored = { keys: new Set(), nested: new Map() };

/** Response keys directly under a selection set with their own selection sets, fragments included. */
function selectionsByKey(set: SelectionSetNode, fragments: Record<string, FragmentDefinitionNode>, out = new Map<string, SelectionSetNode | undefined>()) {
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) out.set(s.alias?.value ?? s.name.value, s.selectionSet ?? out.get(s.alias?.value ?? s.name.value));
    else if (s.kind === Kind.INLINE_FRAGMENT) selectionsByKey(s.selectionSet, fragments, out);
    else if (fragments[s.name.value]) selectionsByKey(fragments[s.name.value].selectionSet, fragments, out);
  }
  return out;
}

function echoTree(input: GraphQLInputObjectType, selection: SelectionSetNode, fragments: Record<string, FragmentDefinitionNode>): EchoIgnored {
  const fields = input.getFields();
  const wireFields = new Set(Object.keys(fields).map(toSnake));
  const selected = selectionsByKey(selection, fragments);
  const nested = new Map<string, EchoIgnored>();
  for (const [name, field] of Object.entries(fields)) {
    const type = getNamedType(field.type);
    const sub = selected.get(toSnake(name));
    if (isInputObjectType(type) && sub) nested.set(toSnake(name), echoTree(type, sub, fragments));
  }
  return { keys: new Set([...selected.keys()].filter((k) => !wireFields.has(k))), nested };
}

const WRITES = new Set(['POST', 'PUT', 'PATCH']);

/** The response keys directly under a selection set, fragments included. */
function responseKeys(set: SelectionSetNode, fragments: Record<string, FragmentDefinitionNode>, out = new Set<string>()): Set<string> {
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) out.add(s.alias?.value ?? s.name.value);
    else if (s.kind === Kind.INLINE_FRAGMENT) responseKeys(s.selectionSet, fragments, out);
    else if (fragments[s.name.value]) responseKeys(fragments[s.name.value].selectionSet, fragments, out);
  }
  return out;
}

function withDefinition(name: string): VariableDefinitionNode {
  return {
    kind: Kind.VARIABLE_DEFINITION,
    variable: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: name } },
    type: { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: 'Boolean' } },
    defaultValue: { kind: Kind.BOOLEAN, value: false },
  };
}

/**
 * Parses and validates an operation's document against the schema and derives everything the REST
 * route, the MCP tool and the OpenAPI description need from its variable definitions. Throws with
 * the operation named when anything does not fit.
 */
export function compileOperation(schema: GraphQLSchema, op: Operation): CompiledOperation {
  const where = `${op.method} ${op.path}`;
  const parsed = parse(op.document);
  const fragments: Record<string, FragmentDefinitionNode> = {};
  const ops: OperationDefinitionNode[] = [];
  for (const d of parsed.definitions) {
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] ??= d;
    else if (d.kind === Kind.OPERATION_DEFINITION) ops.push(d);
  }
  if (ops.length !== 1 || !ops[0].name) throw new Error(`operation ${where}: the document must have exactly one named operation`);
  const withVariables = new Map((op.with?.allowed ?? []).map((r) => [r, withVariable(r)]));
  for (const r of withDefaults(op)) if (!withVariables.has(r)) throw new Error(`operation ${where}: default or always relation ${r} is not allowed`);
  const declared = new Set((ops[0].variableDefinitions ?? []).map((v) => v.variable.name.value));
  const operation: OperationDefinitionNode = {
    ...ops[0],
    variableDefinitions: [
      ...(ops[0].variableDefinitions ?? []),
      ...[...withVariables.values()].filter((v) => !declared.has(v)).map(withDefinition),
    ],
  };
  const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation, ...Object.values(fragments)] };
  const errors = validate(schema, document);
  if (errors.length) throw new Error(`operation ${where}: ${errors.map((e) => e.message).join('; ')}`);

  // spec 000: "A token without write cannot perform POST, PUT, PATCH or DELETE". The method decides;
  // the document must agree, so the GraphQL field behind the entry needs write on /graphql too.
  const writes = needsWrite(op);
  if (writes !== (operation.operation === 'mutation')) {
    throw new Error(`operation ${where}: a ${writes ? 'POST, PUT, PATCH or DELETE needs the write scope, so its document must be a mutation' : 'GET needs no write scope, so its document must be a query'}`);
  }

  const top = operation.selectionSet.selections;
  if (top.length !== 1 || top[0].kind !== Kind.FIELD) throw new Error(`operation ${where}: select exactly one top-level field`);
  const resultField = top[0];

  const pathParams = new Set([...op.path.matchAll(/:(\w+)/g)].map((m) => m[1]));
  for (const alias of op.aliases ?? []) {
    const params = [...alias.matchAll(/:(\w+)/g)].map((m) => m[1]);
    if (params.length !== pathParams.size || params.some((p) => !pathParams.has(p))) throw new Error(`operation ${where}: alias ${alias} must have the path's parameters`);
  }
  const isWrite = WRITES.has(op.method);
  const variables: VariableSpec[] = [];
  let bodyVariable: VariableSpec | undefined;
  const withNames = new Set(withVariables.values());
  for (const def of operation.variableDefinitions ?? []) {
    const name = def.variable.name.value;
    if (withNames.has(name)) continue;
    if (name.startsWith('with_')) throw new Error(`operation ${where}: $${name} is not declared by its with list`);
    const type = typeFromAST(schema, def.type as never) as GraphQLInputType;
    const wire = op.names?.[name] ?? toSnake(name);
    const required = isNonNullType(type) && !def.defaultValue;
    const spec: VariableSpec = { name, wire, type, required, source: 'query' };
    if (pathParams.has(wire)) spec.source = 'path';
    else if (isWrite && isInputObjectType(getNamedType(type)) && !bodyVariable) {
      spec.source = 'body';
      bodyVariable = spec;
    } else if (isWrite) spec.source = op.queryParameters?.includes(wire) ? 'query' : 'body-field';
    variables.push(spec);
  }
  const boundFields: CompiledOperation['boundFields'] = [];
  for (const [key, wire] of Object.entries(op.names ?? {})) {
    const [variable, field, ...rest] = key.split('.');
    if (field === undefined) continue;
    const type = bodyVariable?.name === variable && !rest.length && pathParams.has(wire) ? (getNamedType(bodyVariable.type) as GraphQLInputObjectType).getFields()[field]?.type : undefined;
    if (!type) throw new Error(`operation ${where}: names['${key}'] must bind a field of the body's input object to a path parameter`);
    boundFields.push({ field, wire, type });
  }
  for (const p of pathParams) {
    if (!variables.some((v) => v.source === 'path' && v.wire === p) && !boundFields.some((b) => b.wire === p)) throw new Error(`operation ${where}: no variable reads the path parameter :${p}`);
  }
  // a body taken whole leaves the other non-path variables to the query string
  if (bodyVariable) for (const v of variables) if (v.source === 'body-field') v.source = 'query';

  let echoIgnored: EchoIgnored = NOTHING_IGNORED;
  if (bodyVariable && (op.method === 'PUT' || op.method === 'PATCH' || op.updates) && resultField.selectionSet) {
    echoIgnored = echoTree(getNamedType(bodyVariable.type) as GraphQLInputObjectType, resultField.selectionSet, fragments);
  }

  return {
    op,
    document,
    operation,
    fragments,
    isMutation: operation.operation === 'mutation',
    needsWrite: writes,
    toolName: toSnake(ops[0].name.value).replace(/^_/, ''),
    resultKey: resultField.alias?.value ?? resultField.name.value,
    nodesOnly: selectsOnlyNodes(schema, operation.operation === 'mutation', resultField),
    variables,
    bodyVariable,
    boundFields,
    withVariables,
    echoIgnored,
    wireSpelled: wireSpelledPaths(getNamedType((operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType())!.getFields()[resultField.name.value].type), resultField.selectionSet, fragments),
  };
}

/** Whether the top-level field answers a connection of which the document selects only `nodes` (no alias). */
function selectsOnlyNodes(schema: GraphQLSchema, mutation: boolean, field: FieldNode): boolean {
  const type = getNamedType((mutation ? schema.getMutationType() : schema.getQueryType())!.getFields()[field.name.value].type);
  const only = field.selectionSet?.selections.length === 1 ? field.selectionSet.selections[0] : undefined;
  return type.name.endsWith('Connection') && only?.kind === Kind.FIELD && only.name.value === 'nodes' && !only.alias;
}
