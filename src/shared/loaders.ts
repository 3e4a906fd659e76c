import DataLoader from 'dataloader';
import type { Db } from '../db/database.ts';

/**
 * Per-request loaders for lookups Prisma's relation batching does not reach (audit columns such as
 * created_by_id have no relation, so users are loaded here in one query per request tick).
 */
export function createLoaders(prisma: Db) {
  return {
    userById: new DataLoader<number, { id: number; email: string; firstName: string | null; lastName: string | null } | null>(
      async (ids) => {
        const rows = await prisma.user.findMany({
          where: { id: { in: [...ids] } },
          select: { id: true, email: true, firstName: true, lastName: true },
        });
        const byId = new Map(rows.map((r) => [r.id, r]));
        return ids.map((id) => byId.get(id) ?? null);
      },
    ),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

const moduleLoaders = new WeakMap<Loaders, Map<string, DataLoader<unknown, unknown>>>();

/**
 * A module's own per-request loader, made on first use: `batch` gets every key asked for in one tick
 * of the request. Modules keep their batch functions next to their types instead of growing this file.
 */
export function requestLoader<K, V>(loaders: Loaders, name: string, batch: (keys: readonly K[]) => Promise<V[]>): DataLoader<K, V> {
  let byName = moduleLoaders.get(loaders);
  if (!byName) moduleLoaders.set(loaders, (byName = new Map()));
  let loader = byName.get(name) as DataLoader<K, V> | undefined;
  if (!loader) byName.set(name, (loader = new DataLoader<K, V>(batch)) as DataLoader<unknown, unknown>);
  return loader;
}
