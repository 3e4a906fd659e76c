import type { Prisma } from './database.ts';
import { CURRENCIES, UNITS } from '../reference-data/index.ts';

/**
 * System-wide reference data (units, currencies), inserted after migrations on every start.
 * Idempotent: existing rows (matched by their code) are left alone.
 */
export async function ensureReferenceData(prisma: Prisma): Promise<void> {
  await prisma.$transaction([
    prisma.unit.createMany({
      data: UNITS.map((u) => ({ symbol: u.symbol, unEceRec20Code: u.unEceRec20Code, unEceRec21Code: u.unEceRec21Code, description: u.description })),
      skipDuplicates: true,
    }),
    prisma.currency.createMany({
      data: CURRENCIES.map((c) => ({ code: c.code, name: c.name, minorUnits: c.minorUnits })),
      skipDuplicates: true,
    }),
  ]);
}
