import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * A scratch PostgreSQL database for one benchmark run, created on the server of
 * BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres, the machine's own) and
 * dropped by `drop()`. Returns null when that server cannot be reached, so a bench on a machine
 * without PostgreSQL still measures PGlite. Never migrates the admin database itself.
 */
export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function scratchPostgres(label = 'bench'): Promise<ScratchDatabase | null> {
  const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `regnskap_${label.replace(/\W/g, '_')}_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  } catch (e) {
    console.log(`(PostgreSQL at ${new URL(adminUrl).host} not reachable: ${(e as Error).message}; measuring PGlite only)`);
    return null;
  } finally {
    await admin.end().catch(() => {});
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
