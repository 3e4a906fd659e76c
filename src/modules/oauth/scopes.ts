/**
 * Scope rules of spec 000 ("Authentication" 6 and 7): `read` and `write`, write implies read, no
 * requested scope grants read, and the legacy names are deprecated aliases.
 */
export const SCOPES = ['read', 'write'] as const;

const ALIASES: Record<string, 'read' | 'write'> = {
  read: 'read',
  write: 'write',
  'read:profile': 'read',
  'read:accounting': 'read',
  'write:profile': 'write',
  'write:accounting': 'write',
};

export type ScopeResult = { ok: true; scope: string } | { ok: false; unknown: string[] };

/**
 * The canonical scope string ("read" or "read write") for a requested one. `emptyMeans` says what no
 * scope asks for: `read` at authorize and client_credentials, `''` where no scope keeps the original
 * (refresh).
 */
export function normalizeScope(requested: string | undefined | null, emptyMeans: 'read' | ''): ScopeResult {
  const names = (requested ?? '').split(/\s+/).filter(Boolean);
  const unknown = names.filter((n) => !(n in ALIASES));
  if (unknown.length) return { ok: false, unknown };
  const mapped = new Set(names.map((n) => ALIASES[n]));
  if (mapped.has('write')) return { ok: true, scope: 'read write' };
  if (mapped.has('read')) return { ok: true, scope: 'read' };
  return { ok: true, scope: emptyMeans };
}

/** Is every scope of `requested` (canonical) allowed by the client's registered `allowed` scope? */
export function scopeWithin(requested: string, allowed: string | undefined): boolean {
  const have = new Set((allowed ?? 'read write').split(/\s+/));
  return requested.split(/\s+/).filter(Boolean).every((s) => have.has(s));
}
