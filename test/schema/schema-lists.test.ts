import { getNamedType, getNullableType, isListType, isNonNullType, isObjectType, type GraphQLField, type GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/schema.ts';

// Issue 30: "Every list field becomes a connection" and "Single-record lookups are nullable", checked
// over the whole schema so a new module cannot drift from them.
const query = schema.getQueryType()!;
const rootFields = Object.values(query.getFields());
const isRecord = (t: GraphQLObjectType) => 'id' in t.getFields();
const CONNECTION_ARGS = ['first', 'after', 'last', 'before'];

/**
 * Root lists that may stay plain arrays, each with why. None today: a new root list of records must be
 * a connection or be added here with its reason.
 */
const PLAIN_LISTS: Record<string, string> = {};

describe('lists are Relay connections', () => {
  const connections = rootFields.filter((f) => getNamedType(f.type).name.endsWith('Connection'));

  it('the page envelopes are gone: every type with `nodes` is a connection', () => {
    const envelopes = Object.values(schema.getTypeMap()).filter((t) => isObjectType(t) && !t.name.startsWith('__') && 'nodes' in t.getFields() && !t.name.endsWith('Connection'));
    expect(envelopes.map((t) => t.name)).toEqual([]);
  });

  it.each(connections.map((f) => [f.name, f] as const))('%s takes first/after/last/before and answers edges, nodes, pageInfo and totalCount', (_name, field) => {
    expect(field.args.map((a) => a.name)).toEqual(expect.arrayContaining(CONNECTION_ARGS));
    const type = getNullableType(field.type) as GraphQLObjectType;
    const fields = type.getFields();
    expect(Object.keys(fields)).toEqual(expect.arrayContaining(['edges', 'nodes', 'pageInfo', 'totalCount']));
    const edge = getNamedType(fields.edges.type) as GraphQLObjectType;
    expect(Object.keys(edge.getFields()).sort()).toEqual(['cursor', 'node']);
    expect(String(fields.pageInfo.type)).toBe('PageInfo!');
  });

  it('every other root list of records is a plain array only for a stated reason', () => {
    const plain = rootFields
      .filter((f) => isListType(getNullableType(f.type)))
      .filter((f) => {
        const named = getNamedType(f.type);
        return isObjectType(named) && isRecord(named);
      })
      .map((f) => f.name);
    expect(plain.filter((n) => !PLAIN_LISTS[n])).toEqual([]);
    expect(Object.keys(PLAIN_LISTS).filter((n) => !plain.includes(n)), 'stale entries').toEqual([]);
  });
});

describe('single-record lookups are nullable (a missing or forbidden record is null with a coded error at its path)', () => {
  const lookups = rootFields.filter((f: GraphQLField<unknown, unknown>) => {
    const type = getNullableType(f.type);
    return isObjectType(type) && !type.name.endsWith('Connection') && f.args.some((a) => a.name === 'id');
  });

  it('there are lookups to check', () => expect(lookups.length).toBeGreaterThan(30));

  it.each(lookups.map((f) => [f.name, f] as const))('%s is nullable', (_name, field) => {
    expect(isNonNullType(field.type)).toBe(false);
  });
});
