import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { ensureReferenceData } from '../src/db/reference-data.ts';
import { createSeed } from '../test/support/seed.ts';
import { scratchPostgres } from './scratch-db.ts';
import { rawBatch, type RawTarget } from './raw-ledger.ts';
import { startServer } from './server-process.ts';

/**
 * npm run bench -- ledger-batch [--seconds N] [--size N] [--clients N] (issue 33): bulk posting
 * through POST /api/v2/journal-entries/batch (500 two-line entries a batch, 4 concurrent clients, one
 * client account, the server as its own process) next to raw multi-row SQL writing the same rows in
 * the same run on PostgreSQL (per batch one transaction: the ids from the sequence, the chain head
 * locked and read, every entry and line through unnest, the head advanced; no HTTP, authentication,
 * validation, rule reads, hashing or response). Prints entries/s and lines/s of both and the ratio
 * (goal: the API ≥ 0.3× raw).
 */
const ACCOUNTS = ['6300', '1920'];

const entries = (size: number, n: number) =>
  Array.from({ length: size }, (_, i) => {
    const amount = (100 + ((n * size + i) % 900)).toFixed(2);
    return {
      description: `Bench ${n}/${i}`,
      lines: [
        { posting_date: '2026-06-15', account_code: ACCOUNTS[0], debit: amount, credit: '0' },
        { posting_date: '2026-06-15', account_code: ACCOUNTS[1], debit: '0', credit: amount },
      ],
    };
  });

async function rate(clients: number, seconds: number, work: (n: number, loop: number) => Promise<boolean>) {
  let done = 0;
  let failures = 0;
  let n = 0;
  const until = Date.now() + seconds * 1000;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, loop) => {
      while (Date.now() < until) {
        if (await work(n++, loop)) done++;
        else failures++;
      }
    }),
  );
  return { perSecond: done / ((Date.now() - started) / 1000), failures };
}

export async function ledgerBatch(args: string[] = []): Promise<void> {
  const arg = (name: string, fallback: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
  const seconds = arg('--seconds', 8);
  const size = arg('--size', 500);
  const clients = arg('--clients', 4);
  const scratch = await scratchPostgres('ledger_batch');
  if (!scratch) {
    console.log('ledger-batch: needs PostgreSQL (BENCH_POSTGRES_URL); skipped');
    return;
  }
  try {
    const db = await openDatabase({ databaseUrl: scratch.url });
    await applyMigrations(db.adapterFactory);
    await ensureReferenceData(db.prisma);
    const seed = createSeed(db.prisma);
    const api = await seed.tenant();
    const raw = await seed.tenant();
    const rawAccounts = await Promise.all(ACCOUNTS.map((c) => raw.ledgerAccount(c)));
    await db.close();

    const server = await startServer({ DATABASE_URL: scratch.url, API_RATE_LIMIT: 'off', REQUEST_BODY_TIMEOUT_MS: '60000' });
    let rest: { perSecond: number; failures: number };
    try {
      const post = async (n: number) => {
        const res = await fetch(`${server.base}/api/v2/journal-entries/batch`, {
          method: 'POST',
          headers: { authorization: `Bearer ${api.user.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ client_account_id: api.account.id, entries: entries(size, n) }),
        });
        const text = await res.text();
        if (res.status !== 201 && n === 0) console.log(`  first batch answered ${res.status}: ${text.slice(0, 300)}`);
        return res.status === 201;
      };
      if (!(await post(0))) throw new Error('warm-up batch failed');
      rest = await rate(clients, seconds, post);
    } finally {
      await server.stop();
    }
    const pool = new pg.Pool({ connectionString: scratch.url, max: clients });
    pool.on('error', () => {}); // a connection ended by the scratch database's drop
    const conns = await Promise.all(Array.from({ length: clients }, () => pool.connect()));
    for (const c of conns) c.on('error', () => {});
    const target: RawTarget = { clientAccountId: raw.account.id, accounts: rawAccounts, userId: raw.user.id, postingDate: '2026-06-15' };
    await rawBatch(conns[0]!, target, 0, size);
    const rawRate = await rate(clients, seconds, (n, loop) => rawBatch(conns[loop]!, target, n * size, size));
    for (const c of conns) c.release();
    await pool.end();

    const e = (r: { perSecond: number }) => r.perSecond * size;
    console.log(`ledger-batch: ${size}-entry batches (2 lines each), ${clients} clients, one client account, PostgreSQL, ${seconds} s per run`);
    console.log(`  ${'path'.padEnd(34)} ${'batches/s'.padStart(9)} ${'entries/s'.padStart(10)} ${'lines/s'.padStart(10)}  failures`);
    const row = (label: string, r: { perSecond: number; failures: number }) =>
      console.log(`  ${label.padEnd(34)} ${r.perSecond.toFixed(2).padStart(9)} ${e(r).toFixed(0).padStart(10)} ${(e(r) * 2).toFixed(0).padStart(10)}  ${r.failures}`);
    row('POST /journal-entries/batch', rest);
    row('raw unnest INSERT (same rows)', rawRate);
    const ratio = rest.perSecond / rawRate.perSecond;
    console.log(`  API ÷ raw: ${ratio.toFixed(2)}x (goal ≥ 0.30x: ${ratio >= 0.3 ? 'met' : 'NOT met'})`);
  } finally {
    await scratch.drop();
  }
}
