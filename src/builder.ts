import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin, { AuthScopeFailureType, type AuthFailure } from '@pothos/plugin-scope-auth';
import type PrismaTypes from './generated/pothos-types.ts';
import { getDatamodel } from './generated/pothos-types.ts';
import type { Decimal } from '@prisma/client/runtime/client';
import type { Prisma } from './db/database.ts';
import type { RequestContext } from './shared/context.ts';
import { ForbiddenError, InsufficientScopeError, UnauthenticatedError } from './shared/errors.ts';
import { accountAccess } from './shared/tenancy.ts';
import { DateScalar, DateTimeScalar, DecimalScalar, FileContentScalar, JsonScalar, type SpooledUpload } from './shared/scalars.ts';

/** Which scope check failed first (write before account, so a read-only token learns the real cause). */
function failedScopes(f: AuthFailure): string[] {
  switch (f.kind) {
    case AuthScopeFailureType.AuthScope:
      return [f.scope];
    case AuthScopeFailureType.AnyAuthScopes:
    case AuthScopeFailureType.AllAuthScopes:
      return f.failures.flatMap(failedScopes);
    default:
      return [];
  }
}

function authError(failure: AuthFailure): Error {
  const scopes = failedScopes(failure);
  if (scopes.includes('write')) return new InsufficientScopeError('write');
  if (scopes.includes('read')) return new InsufficientScopeError('read');
  if (scopes.includes('authenticated')) return new UnauthenticatedError();
  return new ForbiddenError();
}

/** The Pothos builder: plugins and scalars only; every type lives in its module's <module>.types.ts. */
export const builder = new SchemaBuilder<{
  Context: RequestContext;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  AuthScopes: { authenticated: boolean; read: boolean; write: boolean; account: number };
  Scalars: {
    Decimal: { Input: Decimal; Output: Decimal | string };
    Date: { Input: Date; Output: Date };
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
    FileContent: { Input: Buffer | SpooledUpload; Output: never };
  };
}>({
  // RelayPlugin for the connection types of every list (src/shared/page-type.ts); no global ids and
  // no node/nodes root fields: records keep their numeric ids, as REST and MCP name them
  plugins: [ScopeAuthPlugin, RelayPlugin, PrismaPlugin],
  defaultFieldNullability: false,
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    nodesOnConnection: true,
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
  },
  prisma: {
    // The plugin only reads through model delegates, which a transaction client has too.
    client: (ctx) => ctx.db as Prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: true,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  scopeAuth: {
    authScopes: (ctx) => ({
      authenticated: ctx.actor.userId > 0,
      read: ctx.actor.scopes.has('read'),
      write: ctx.actor.scopes.has('write'),
      account: (clientAccountId: number) => accountAccess(ctx, clientAccountId),
    }),
    unauthorizedError: (_parent, _context, _info, result) => authError(result.failure),
  },
});

builder.addScalarType('Decimal', DecimalScalar);
builder.addScalarType('Date', DateScalar);
builder.addScalarType('DateTime', DateTimeScalar);
builder.addScalarType('JSON', JsonScalar);
builder.addScalarType('FileContent', FileContentScalar);

// Every query and subscription needs `read`, every mutation `write` (scope-auth checks type scopes before each field).
builder.queryType({ authScopes: { read: true } });
builder.mutationType({ authScopes: { write: true } });
builder.subscriptionType({ authScopes: { read: true } });

/**
 * Options of a Query or Mutation field anyone may call, without a token (spec 002's `/public/v2`
 * invitation operations): the root type's `read`/`write` requirement is skipped, and `requireToken`
 * (src/shared/graphql-errors.ts) lets an operation through on /graphql when it selects only such
 * fields. What the field returns must not be tenant-scoped.
 */
export const publicField = { skipTypeScopes: true, extensions: { publicField: true } } as const;

/**
 * Options of a Mutation field that stores nothing: it renders something or asks an outside service
 * (a document's preview PDF, the tax authority's pre-filled data or validation). It is a mutation
 * because its REST entry is a POST, and spec 000 says "A token without write cannot perform POST,
 * PUT, PATCH or DELETE": it needs `write` on every entry point. The chat assistant's preview lists
 * no change for it and does not run it again to write (src/assistant/preview-execution.ts).
 */
export const storesNothing = { extensions: { storesNothing: true } } as const;

/** Whether a root field is marked `storesNothing`. */
export const isStoresNothing = (field: { extensions?: Readonly<Record<string, unknown>> | null } | undefined): boolean => field?.extensions?.storesNothing === true;

/**
 * Options of a field (or input field) whose enum values the REST wire spells as the spec does, not as
 * GraphQL names them: each value's `extensions.wire` (the dimension types: GraphQL `BUSINESS_PARTNER`,
 * REST `businesspartner`). The REST adapter writes that spelling in answers and OpenAPI lists it;
 * on input it accepts either spelling wherever an enum is read.
 */
export const wireSpelled = { extensions: { wireSpelled: true } } as const;

/** Whether a field is marked `wireSpelled`. */
export const isWireSpelled = (field: { extensions?: Readonly<Record<string, unknown>> | null } | undefined): boolean => field?.extensions?.wireSpelled === true;

/**
 * Options for a tenant-owned object type: each returned object is checked against the caller's
 * eligible accounts, whatever path reached it (the service checks first; this is the backstop).
 */
export const tenantScoped = {
  runScopesOnType: true,
  authScopes: (parent: { clientAccountId: number }) => ({ account: parent.clientAccountId }),
} as const;
