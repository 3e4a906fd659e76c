import {
  getNamedType,
  isEnumType,
  isInterfaceType,
  isObjectType,
  Kind,
  type FragmentDefinitionNode,
  type GraphQLEnumType,
  type GraphQLEnumValue,
  type GraphQLNamedType,
  type SelectionSetNode,
} from 'graphql';
import { isWireSpelled } from '../src/builder.ts';

/**
 * Enum values the spec spells otherwise than GraphQL names them (the dimension types: GraphQL
 * `BUSINESS_PARTNER`, spec 001 `businesspartner`): the value's `extensions.wire`. Answers show that
 * spelling on fields marked `wireSpelled` (src/builder.ts); requests may use either spelling.
 */
export const wireSpelling = (value: GraphQLEnumValue): string | undefined => {
  const wire = value.extensions?.wire;
  return typeof wire === 'string' ? wire : undefined;
};

/** The GraphQL name of an enum value given by its name or its wire spelling (`ignoreCase` for query strings); unknown values as given. */
export function enumFromWire(type: GraphQLEnumType, raw: string, ignoreCase: boolean): string {
  const same = (a: string | undefined) => a !== undefined && (ignoreCase ? a.toLowerCase() === raw.toLowerCase() : a === raw);
  const values = type.getValues();
  return (values.find((v) => same(v.name)) ?? values.find((v) => same(wireSpelling(v))))?.name ?? raw;
}

/** One wire-spelled field of an answer: the response keys leading to it from the result, and name → spelling. */
export interface WireSpelledPath {
  path: string[];
  spelling: ReadonlyMap<string, string>;
}

/** The wire-spelled enum fields a selection set reaches (fragments included), by their response paths. */
export function wireSpelledPaths(
  parent: GraphQLNamedType,
  set: SelectionSetNode | undefined,
  fragments: Record<string, FragmentDefinitionNode>,
  at: string[] = [],
  out: WireSpelledPath[] = [],
): WireSpelledPath[] {
  if (!set || !(isObjectType(parent) || isInterfaceType(parent))) return out;
  for (const sel of set.selections) {
    if (sel.kind === Kind.FRAGMENT_SPREAD) wireSpelledPaths(parent, fragments[sel.name.value]?.selectionSet, fragments, at, out);
    else if (sel.kind === Kind.INLINE_FRAGMENT) wireSpelledPaths(parent, sel.selectionSet, fragments, at, out);
    else {
      const field = parent.getFields()[sel.name.value];
      if (!field) continue;
      const key = sel.alias?.value ?? sel.name.value;
      const type = getNamedType(field.type);
      if (isEnumType(type) && isWireSpelled(field)) {
        const spelling = new Map(type.getValues().flatMap((v) => (wireSpelling(v) ? [[v.name, wireSpelling(v)!] as const] : [])));
        out.push({ path: [...at, key], spelling });
      } else wireSpelledPaths(type, sel.selectionSet, fragments, [...at, key], out);
    }
  }
  return out;
}

/** The answer with each wire-spelled enum value in the spec's spelling (through lists at any level). */
export function withWireSpelling(value: unknown, paths: readonly WireSpelledPath[]): unknown {
  for (const { path, spelling } of paths) respell(value, path, spelling);
  return value;
}

function respell(value: unknown, path: readonly string[], spelling: ReadonlyMap<string, string>): void {
  if (Array.isArray(value)) {
    for (const v of value) respell(v, path, spelling);
    return;
  }
  if (!value || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  const [key, ...rest] = path;
  if (rest.length) return respell(record[key], rest, spelling);
  const shown = (v: unknown) => (typeof v === 'string' ? (spelling.get(v) ?? v) : v);
  if (key in record) record[key] = Array.isArray(record[key]) ? (record[key] as unknown[]).map(shown) : shown(record[key]);
}
