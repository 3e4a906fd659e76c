import type { Prisma } from '../db/database.ts';
import type { Actor } from '../shared/context.ts';

/**
 * Bearer tokens become actors here. Each kind of token has a verifier; the session tokens of
 * POST /v2/oauth/login are one, the OAuth server's JWT access tokens plug in as another
 * (`registerTokenVerifier`) without touching the middleware.
 */
export interface TokenVerifier {
  /** cheap syntactic test: is this token of my kind? */
  accepts(token: string): boolean;
  /** the actor, or null when the token is unknown, expired or revoked */
  verify(token: string, prisma: Prisma): Promise<Actor | null>;
}

export class Authenticator {
  private readonly verifiers: TokenVerifier[] = [];

  register(verifier: TokenVerifier): void {
    this.verifiers.push(verifier);
  }

  async authenticate(authorization: string | undefined, prisma: Prisma): Promise<Actor | null> {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!m) return null;
    const token = m[1];
    const verifier = this.verifiers.find((v) => v.accepts(token));
    return verifier ? verifier.verify(token, prisma) : null;
  }
}

/**
 * spec 000, Authentication 6: "A token without write cannot perform POST, PUT, PATCH or DELETE".
 * The one statement of the rule: the operation table (REST route, MCP tool annotation, OpenAPI
 * security), the idempotency keys and the GraphQL document of each entry (a mutation) follow it.
 */
export const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Whether an HTTP method needs the `write` scope (HEAD and GET do not). */
export const methodNeedsWrite = (method: string): boolean => WRITE_METHODS.has(method.toUpperCase());

/** Scope strings of a token: `write` implies `read`; unknown names are ignored. */
export function parseScopes(scope: string | undefined | null): Set<'read' | 'write'> {
  const out = new Set<'read' | 'write'>();
  for (const s of (scope ?? '').split(/\s+/)) {
    if (s === 'read') out.add('read');
    if (s === 'write') out.add('write').add('read');
  }
  return out;
}

/**
 * The caller of a /graphql request without a token: no user, no scope. It may introspect the public
 * schema and nothing else (src/shared/graphql-errors.ts, `requireToken`).
 */
export const ANONYMOUS: Actor = Object.freeze({ userId: 0, scopes: new Set<never>(), clientId: null, tokenKind: 'anonymous', sessionId: null });
