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
