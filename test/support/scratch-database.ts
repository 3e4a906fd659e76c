import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A PostgreSQL database made for one run (tests, benchmarks) on another database's server. */
export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * Creates an empty database on the server of `adminUrl` (named `regnskap_<label>_<time>_<random>`)
 * and returns its URL and how to drop it. Never migrates the admin database itself. Throws when the
 * server cannot be reached.
 */
export async function createScratchDatabase(adminUrl: string, label: string): Promise<ScratchDatabase> {
  const name = `regnskap_${label.replace(/\W/g, '_')}_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
