import type { Actor } from '../shared/context.ts';

/**
 * Verified session tokens, kept in this process for a few seconds (SESSION_CACHE_SECONDS, default
 * 5) so that a burst of requests with one token costs one database lookup instead of one each (the
 * lookup was a quarter of the cost of a minimal request). Keyed by the token's SHA-256, like the
 * table. An entry never outlives its session's expiry.
 *
 * Revocation: a change in this process (changePassword ending the user's other sessions) forgets the
 * user's entries at once; a session deleted by another process sharing the database (or by hand) is
 * still accepted here for at most the cache's lifetime.
 */
interface Entry {
  actor: Actor;
  /** Date.now() after which the entry is looked up again */
  until: number;
}

/** Most tokens kept; the oldest entry goes first when it is full (Map keeps insertion order). */
const MAX_ENTRIES = 10_000;

const caches = new Set<SessionCache>();

export class SessionCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly ttlMs: number) {
    if (ttlMs > 0) caches.add(this);
  }

  get(tokenHash: string): Actor | undefined {
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    if (entry.until > Date.now()) return entry.actor;
    this.entries.delete(tokenHash);
    return undefined;
  }

  set(tokenHash: string, actor: Actor, expiresAt: Date): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(tokenHash, { actor, until: Math.min(Date.now() + this.ttlMs, expiresAt.getTime()) });
  }

  forgetUser(userId: number): void {
    for (const [key, entry] of this.entries) if (entry.actor.userId === userId) this.entries.delete(key);
  }
}

/** After sessions of a user were deleted (committed): no cache of this process accepts them any more. */
export function forgetCachedSessions(userId: number): void {
  for (const cache of caches) cache.forgetUser(userId);
}
