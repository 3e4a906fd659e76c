import { createHash } from 'node:crypto';
import { GraphQLError, Kind, parse, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { Request } from 'express';
import type { RequestContext } from './context.ts';
import { anonymousAllowed } from './graphql-errors.ts';

/**
 * Persisted operations on /graphql: a client sends `extensions.persistedQuery {version: 1,
 * sha256Hash}` instead of (or with) the document, the protocol Apollo Client, urql and Relay speak
 * (Automatic Persisted Queries, APQ), also over GET, where the short URL is what makes the answer
 * cacheable. Two sources of documents, looked up in this order:
 *
 * - trusted documents: a manifest `{hash: document}` (GRAPHQL_PERSISTED_OPERATIONS, the format of
 *   @graphql-codegen/client-preset's `persisted-documents.json`, whose keys are `sha256:<hex>`: found
 *   by that key and by the bare hex APQ clients send), read at boot; every document must
 *   parse and validate against the schema or the server does not start. With
 *   GRAPHQL_PERSISTED_OPERATIONS_ONLY only these run: a request with a document of its own is refused.
 * - automatic registration (APQ, unless only trusted documents run): an unknown hash is answered
 *   `PersistedQueryNotFound` (404, `extensions.code` PERSISTED_QUERY_NOT_FOUND, the protocol's code,
 *   kept by graphqlErrorCodes), the client sends the document with its hash, the server checks that
 *   the hash is the document's SHA-256 and, once the document has validated, keeps it in this
 *   process's memory (an LRU of APQ_CACHE operations and characters). Processes sharing one database
 *   do not share it: a client whose hash is unknown to the process it reaches registers again, one
 *   round trip more, which is what the protocol is for.
 *
 * graphql-yoga's `usePersistedOperations` does the lookup and the errors; the registration step is
 * ours (`registerOperations`): @graphql-yoga/plugin-apq, which does both, has had no release since
 * 2024 and declares a peer @graphql-tools/utils 10 that conflicts with yoga 5.24's 11.
 */

/** how many documents the APQ registry of one process keeps, and their characters together */
export const APQ_CACHE = { maxOperations: 1_000, maxChars: 4_000_000 };

/** client-preset's persisted documents name their hash's algorithm: `sha256:<hex>` */
const SHA256_PREFIX = /^sha256:/;

/** SHA-256 of the document's UTF-8 bytes, lower-case hex: the APQ hash */
export const sha256Hex = (document: string): string => createHash('sha256').update(document, 'utf8').digest('hex');

/** a least-recently-used map of hash → document, bounded by entries and characters */
export class OperationCache {
  private readonly entries = new Map<string, string>();
  private chars = 0;

  constructor(
    private readonly maxOperations = APQ_CACHE.maxOperations,
    private readonly maxChars = APQ_CACHE.maxChars,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(hash: string): string | undefined {
    const document = this.entries.get(hash);
    if (document !== undefined) {
      this.entries.delete(hash);
      this.entries.set(hash, document);
    }
    return document;
  }

  set(hash: string, document: string): void {
    if (document.length > this.maxChars) return;
    const old = this.entries.get(hash);
    if (old !== undefined) {
      this.entries.delete(hash);
      this.chars -= old.length;
    }
    this.entries.set(hash, document);
    this.chars += document.length;
    for (const [oldest, value] of this.entries) {
      if (this.entries.size <= this.maxOperations && this.chars <= this.maxChars) break;
      this.entries.delete(oldest);
      this.chars -= value.length;
    }
  }
}

export interface PersistedOperationsOptions {
  /** trusted documents by hash (GRAPHQL_PERSISTED_OPERATIONS) */
  trusted?: ReadonlyMap<string, string>;
  /** run only the trusted documents (GRAPHQL_PERSISTED_OPERATIONS_ONLY) */
  only?: boolean;
  /** the APQ registry (default: a new OperationCache) */
  cache?: OperationCache;
}

/** `extensions.persistedQuery` when it is the APQ extension, version 1 */
function persistedQueryOf(extensions: unknown): { sha256Hash: string } | undefined {
  const pq = (extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | undefined)?.persistedQuery;
  return pq && typeof pq === 'object' && pq.version === 1 && typeof pq.sha256Hash === 'string' ? { sha256Hash: pq.sha256Hash } : undefined;
}

/**
 * Every trusted document parsed and validated against the schema: a manifest that does not match the
 * schema the server runs stops it at boot, naming the hash, instead of failing one client later.
 */
export function checkTrustedDocuments(schema: GraphQLSchema, trusted: ReadonlyMap<string, string>): void {
  for (const [hash, document] of trusted) {
    let ast: DocumentNode;
    try {
      ast = parse(document);
    } catch (e) {
      throw new Error(`GRAPHQL_PERSISTED_OPERATIONS: the document of ${hash} does not parse: ${(e as Error).message}`);
    }
    const errors = validate(schema, ast);
    if (errors.length) throw new Error(`GRAPHQL_PERSISTED_OPERATIONS: the document of ${hash} does not match the schema: ${errors[0].message}`);
    if (!ast.definitions.some((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)) {
      throw new Error(`GRAPHQL_PERSISTED_OPERATIONS: the document of ${hash} has no operation`);
    }
  }
}

/**
 * APQ registration: a request with a document and its hash. The hash must be the document's SHA-256
 * (else 400 PersistedQueryMismatch, nothing kept); the document is kept once it has passed the query
 * limits and validation, and only when the caller may run it: a token holder, or without a token an
 * operation of introspection and public fields only (`requireToken` refuses the rest), so a caller
 * without a token cannot push other clients' documents out of the registry with its own.
 */
function registerOperations(cache: OperationCache): Plugin {
  const pending = new WeakMap<object, { hash: string; document: string }>();
  return {
    onParams({ params, context }) {
      const pq = persistedQueryOf(params.extensions);
      if (!pq || typeof params.query !== 'string') return;
      if (sha256Hex(params.query) !== pq.sha256Hash.replace(SHA256_PREFIX, '')) {
        throw new GraphQLError('PersistedQueryMismatch: extensions.persistedQuery.sha256Hash is not the SHA-256 (hex) of the query', { extensions: { http: { status: 400 } } });
      }
      const req = (context as { req?: Request }).req;
      if (req) pending.set(req, { hash: pq.sha256Hash, document: params.query });
    },
    onValidate({ context, params }) {
      // the initial context: yoga builds ours (req.ctx) after validation
      const { req, params: request } = context as { req?: Request & { ctx?: RequestContext }; params?: { operationName?: string | null } };
      const actor = req?.ctx?.actor;
      const registration = req && pending.get(req);
      if (!registration) return;
      return ({ valid }) => {
        if (!valid) return;
        if (actor?.tokenKind === 'anonymous' && !anonymousAllowed(params.schema, params.documentAST, request?.operationName)) return;
        cache.set(registration.hash, registration.document);
      };
    },
  };
}

export interface PersistedOperations {
  /** the yoga plugins; put them first, so every later plugin sees the document a hash stands for */
  plugins: Plugin[];
  /** the document a hash stands for now (trusted, else registered), as the lookup would find it */
  documentOf(hash: string): string | undefined;
}

export function persistedOperations(options: PersistedOperationsOptions = {}): PersistedOperations {
  const trusted = options.trusted ?? new Map<string, string>();
  const only = options.only ?? false;
  const cache = options.cache ?? new OperationCache();
  // a manifest key `sha256:<hex>` (client-preset's) is found by the bare hex too (what APQ clients send)
  const documentOf = (hash: string) => trusted.get(hash) ?? trusted.get(`sha256:${hash}`) ?? (only ? undefined : cache.get(hash));
  const lookup = usePersistedOperations({
    allowArbitraryOperations: !only,
    getPersistedOperation: (hash) => documentOf(hash) ?? null,
    customErrors: {
      notFound: { message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', http: { status: 404 } } },
      // neither a document nor a hash: yoga's own answer (and status) before this plugin
      keyNotFound: {
        message: only ? 'Send extensions.persistedQuery {version: 1, sha256Hash} of a trusted document' : 'Must provide query string.',
        extensions: { http: { spec: true, status: 400, headers: { Allow: 'GET, POST' } } },
      },
      persistedQueryOnly: {
        message: 'Only trusted documents run here: send extensions.persistedQuery {version: 1, sha256Hash} of one, without the query',
        extensions: { http: { status: 400 } },
      },
    },
  }) as Plugin;
  return { plugins: only ? [lookup] : [registerOperations(cache), lookup], documentOf };
}

/** the hash of a request's `extensions.persistedQuery` (APQ, version 1), when it has one */
export function persistedHashOf(extensions: unknown): string | undefined {
  return persistedQueryOf(extensions)?.sha256Hash;
}
