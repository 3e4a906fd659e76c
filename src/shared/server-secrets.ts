import type { Prisma } from '../db/database.ts';
import type { Prisma as PrismaNS } from '../generated/prisma/client.ts';

/**
 * A secret every process on the same database shares (server_secrets): `make()` is stored under
 * `name` unless another process already did; the stored value is returned. Restarts keep it, so
 * what it signed stays valid.
 */
export async function sharedSecret<T>(prisma: Prisma, name: string, make: () => Promise<T> | T): Promise<T> {
  const existing = await prisma.serverSecret.findUnique({ where: { name } });
  if (existing) return existing.value as T;
  await prisma.serverSecret.createMany({ data: [{ name, value: (await make()) as PrismaNS.InputJsonValue }], skipDuplicates: true });
  return (await prisma.serverSecret.findUniqueOrThrow({ where: { name } })).value as T;
}
