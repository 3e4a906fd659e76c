import { createScratchDatabase, type ScratchDatabase } from '../test/support/scratch-database.ts';

/**
 * A scratch PostgreSQL database for one benchmark run, created on the server of
 * BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres, the machine's own) and
 * dropped by `drop()`. Returns null when that server cannot be reached, so a bench on a machine
 * without PostgreSQL still measures PGlite.
 */
export async function scratchPostgres(label = 'bench'): Promise<ScratchDatabase | null> {
  const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  try {
    return await createScratchDatabase(adminUrl, label);
  } catch (e) {
    console.log(`(PostgreSQL at ${new URL(adminUrl).host} not reachable: ${(e as Error).message}; measuring PGlite only)`);
    return null;
  }
}
