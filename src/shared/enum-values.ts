import { GraphQLError, isEnumType, Kind, type GraphQLSchema, type ValueNode } from 'graphql';

type Maybe<T> = T | null | undefined;
type ObjMap<T> = Record<string, T>;

/** A GraphQL enum's values from a rules list, each with its description (a value missing from either is a type error). */
export const described = <T extends string>(values: readonly T[], descriptions: Record<T, string>) =>
  Object.fromEntries(values.map((v) => [v, { description: descriptions[v] }])) as Record<T, { description: string }>;

/**
 * Every enum of the schema refuses a value longer than its longest name without graphql-js's "Did you
 * mean …?": that suggestion turns the value into an array of its characters, so a 1 MB string sent
 * for an enum (a variable, a string or enum literal, a REST parameter) cost some 40 ms of CPU. The
 * message is graphql-js's own without the suggestion, the value cut to 40 characters.
 */
export function boundEnumCoercion(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isEnumType(type)) continue;
    const longest = Math.max(0, ...type.getValues().map((v) => v.name.length));
    const cut = (s: string) => JSON.stringify(s.slice(0, 40)).slice(0, -1) + '…"';
    const parseValue = type.parseValue.bind(type);
    const parseLiteral = type.parseLiteral.bind(type);
    type.parseValue = (value: unknown) => {
      if (typeof value === 'string' && value.length > longest) throw new GraphQLError(`Value ${cut(value)} does not exist in "${type.name}" enum.`);
      return parseValue(value);
    };
    type.parseLiteral = (node: ValueNode, variables?: Maybe<ObjMap<unknown>>) => {
      if (node.kind === Kind.STRING && node.value.length > longest) throw new GraphQLError(`Enum "${type.name}" cannot represent non-enum value: ${cut(node.value)}.`, { nodes: node });
      if (node.kind === Kind.ENUM && node.value.length > longest) throw new GraphQLError(`Value ${cut(node.value)} does not exist in "${type.name}" enum.`, { nodes: node });
      return parseLiteral(node, variables);
    };
  }
}
