import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase, type Database } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { ensureReferenceData } from '../src/db/reference-data.ts';
import { createSeed } from '../test/support/seed.ts';
import { scratchPostgres } from './scratch-db.ts';
import { startServer } from './server-process.ts';

/**
 * npm run bench -- ledger [--seconds N]: posted journal entries per second through REST
 * (POST /api/v2/journal-entries/, 2-line and 10-line entries, 1 and 8 concurrent clients) next to
 * raw SQL writing the same rows through the same driver in the same run (pg's Pool on PostgreSQL,
 * the PGlite engine on PGlite): per entry one transaction with the entry row, its lines in one
 * multi-row INSERT and the statement that numbers and chains it (what posting writes, without the
 * API: no HTTP, authentication, validation, reads or response). Prints both rates and their ratio.
 * Each client posts in the same client account, as a busy company's bookkeepers do.
 */
const WARM_UP = 50;
const ACCOUNTS = ['6300', '6340', '6400', '6500', '6700', '1920', '1900', '2050', '3000', '6900'];

export const body = (clientAccountId: number, lines: number, n: number) => {
  const amount = (100 + (n % 900)).toFixed(2);
  const half = lines / 2;
  return {
    client_account_id: clientAccountId,
    description: `Bench ${n}`,
    lines: Array.from({ length: lines }, (_, i) => ({
      posting_date: '2026-06-15',
      account_code: ACCOUNTS[i % ACCOUNTS.length],
      debit: i < half ? amount : '0',
      credit: i < half ? '0' : amount,
    })),
  };
};

/** Runs `clients` loops of `work` for `seconds`; returns completed operations per second (and the failures). */
export async function rate(clients: number, seconds: number, work: (n: number) => Promise<boolean>): Promise<{ perSecond: number; failures: number }> {
  let done = 0;
  let failures = 0;
  let n = 0;
  const until = Date.now() + seconds * 1000;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < until) {
        if (await work(n++)) done++;
        else failures++;
      }
    }),
  );
  return { perSecond: done / ((Date.now() - started) / 1000), failures };
}

/** One entry as raw SQL: the rows the API writes for it. */
async function rawEntry(query: (sql: string, params: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>, accountId: number, lineAccounts: number[], lines: number, n: number, userId: number) {
  const amount = (100 + (n % 900)).toFixed(2);
  const half = lines / 2;
  await query('BEGIN', []);
  try {
    const { rows } = await query(
      `INSERT INTO journal_entries (client_account_id, description, is_draft, created_by_id, updated_by_id, updated_at) VALUES ($1, $2, true, $3, $3, now()) RETURNING id`,
      [accountId, `Bench ${n}`, userId],
    );
    const id = rows[0].id as number;
    const values: string[] = [];
    const params: unknown[] = [id, accountId];
    for (let i = 0; i < lines; i++) {
      params.push(lineAccounts[i % lineAccounts.length], i < half ? amount : '0', i < half ? '0' : amount);
      const p = params.length;
      values.push(`($1, $2, ${i + 1}, '2026-06-15', $${p - 2}, $${p - 1}, $${p}, $${p - 1}, $${p}, 'NOK', 1)`);
    }
    await query(
      `INSERT INTO journal_entry_lines (journal_entry_id, client_account_id, line_id, posting_date, account_id, debit, credit, debit_fc, credit_fc, currency_code, exchange_rate) VALUES ${values.join(', ')}`,
      params,
    );
    await query(
      `WITH head AS (
         INSERT INTO ledger_chains AS c (client_account_id, last_number, last_hash) VALUES ($1, 1, encode(sha256(convert_to('x', 'UTF8')), 'hex'))
         ON CONFLICT (client_account_id) DO UPDATE SET last_number = c.last_number + 1,
           last_hash = encode(sha256(convert_to(c.last_hash || '|' || (c.last_number + 1)::text || '|' || $2, 'UTF8')), 'hex')
         RETURNING last_number, last_hash)
       UPDATE journal_entries e SET sequence_number = head.last_number, entry_hash = head.last_hash, is_draft = false, posted_at = now(), posted_by_id = $3
         FROM head WHERE e.id = $4`,
      [accountId, 'f'.repeat(64), userId, id],
    );
    await query('COMMIT', []);
    return true;
  } catch (e) {
    await query('ROLLBACK', []);
    throw e;
  }
}

export async function prepare(db: Database) {
  await applyMigrations(db.adapterFactory);
  await ensureReferenceData(db.prisma);
  const seed = createSeed(db.prisma);
  const api = await seed.tenant();
  const raw = await seed.tenant();
  const ids = async (t: typeof raw) => Promise.all(ACCOUNTS.map((c) => t.ledgerAccount(c)));
  return { api, raw, rawAccounts: await ids(raw) };
}

/** The databases a write benchmark runs on: PGlite in `dir`, and the scratch PostgreSQL database when there is one. */
export function benchTargets(dir: string, scratch: { url: string } | null): { label: string; env: Record<string, string>; open: () => Promise<Database> }[] {
  return [
    { label: 'PGlite', env: { DATA_DIR: dir, DATABASE_URL: '' }, open: () => openDatabase({ dataDir: dir, purpose: 'bench' }) },
    ...(scratch ? [{ label: 'PostgreSQL', env: { DATABASE_URL: scratch.url }, open: () => openDatabase({ databaseUrl: scratch.url }) }] : []),
  ];
}

export async function ledger(args: string[] = []): Promise<void> {
  const at = args.indexOf('--seconds');
  const seconds = at >= 0 ? Number(args[at + 1]) : 8;
  const dir = mkdtempSync(join(tmpdir(), 'regnskap-ledger-'));
  const scratch = await scratchPostgres('ledger');
  console.log(`ledger: posted journal entries per second, REST vs raw SQL of the same rows, ${seconds} s per run`);
  console.log(`  ${'database'.padEnd(11)} ${'lines'.padStart(5)} ${'clients'.padStart(7)} ${'REST/s'.padStart(8)} ${'raw/s'.padStart(8)} ${'raw÷REST'.padStart(9)}  failures`);
  const targets = benchTargets(dir, scratch);
  try {
    for (const target of targets) {
      const db = await target.open();
      const { api, raw, rawAccounts } = await prepare(db);
      await db.close();
      for (const lines of [2, 10]) {
        for (const clients of [1, 8]) {
          // through the API: the server as its own process, as in production
          const server = await startServer({ ...target.env, API_RATE_LIMIT: 'off' });
          let rest: { perSecond: number; failures: number };
          try {
            const post = async (n: number) => {
              const res = await fetch(`${server.base}/api/v2/journal-entries/`, {
                method: 'POST',
                headers: { authorization: `Bearer ${api.user.token}`, 'content-type': 'application/json' },
                body: JSON.stringify(body(api.account.id, lines, n)),
              });
              await res.arrayBuffer();
              return res.status === 201;
            };
            for (let i = 0; i < WARM_UP; i++) if (!(await post(i))) throw new Error('warm-up post failed (see the server: is it shedding load?)');
            rest = await rate(clients, seconds, post);
          } finally {
            await server.stop();
          }
          // raw SQL, same driver
          let rawRate: { perSecond: number; failures: number };
          if (target.label === 'PostgreSQL') {
            const pool = new pg.Pool({ connectionString: scratch!.url, max: clients });
            const conns = await Promise.all(Array.from({ length: clients }, () => pool.connect()));
            let next = 0;
            const byLoop = new Map<number, pg.PoolClient>();
            rawRate = await rate(clients, seconds, (n) => {
              const loop = n % clients;
              const c = byLoop.get(loop) ?? conns[next++ % clients];
              byLoop.set(loop, c);
              return rawEntry((sql, p) => c.query(sql, p), raw.account.id, rawAccounts, lines, n, raw.user.id);
            }).catch(async (e) => {
              throw e;
            });
            for (const c of conns) c.release();
            await pool.end();
          } else {
            const local = await target.open();
            const engine = local.pglite!;
            let chain = Promise.resolve(true);
            // PGlite has one connection: transactions run one after another
            rawRate = await rate(clients, seconds, (n) => (chain = chain.then(() => rawEntry((sql, p) => engine.query(sql, p), raw.account.id, rawAccounts, lines, n, raw.user.id))));
            await local.close();
          }
          console.log(
            `  ${target.label.padEnd(11)} ${String(lines).padStart(5)} ${String(clients).padStart(7)} ${rest.perSecond.toFixed(0).padStart(8)} ${rawRate.perSecond.toFixed(0).padStart(8)} ${(rawRate.perSecond / rest.perSecond).toFixed(2).padStart(9)}  ${rest.failures}`,
          );
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await scratch?.drop();
  }
}
