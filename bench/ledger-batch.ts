import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { ensureReferenceData } from '../src/db/reference-data.ts';
import { createSeed } from '../test/support/seed.ts';
import { scratchPostgres } from './scratch-db.ts';
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

async function rawBatch(c: pg.PoolClient, clientAccountId: number, accounts: number[], size: number, n: number, userId: number): Promise<boolean> {
  await c.query('BEGIN');
  try {
    const ids = (await c.query(`SELECT nextval(pg_get_serial_sequence('journal_entries', 'id'))::int AS id FROM generate_series(1, $1::int)`, [size])).rows.map((r) => r.id as number);
    await c.query('INSERT INTO ledger_chains (client_account_id, last_number, last_hash) VALUES ($1, 0, $2) ON CONFLICT DO NOTHING', [clientAccountId, '0'.repeat(64)]);
    const head = (await c.query('SELECT last_number FROM ledger_chains WHERE client_account_id = $1 FOR UPDATE', [clientAccountId])).rows[0].last_number as number;
    const amounts = Array.from({ length: size }, (_, i) => (100 + ((n * size + i) % 900)).toFixed(2));
    const numbers = ids.map((_, i) => head + i + 1);
    await c.query(
      `WITH e AS (
         INSERT INTO journal_entries (id, client_account_id, description, is_draft, sequence_number, entry_hash, posted_at, posted_by_id, created_by_id, updated_by_id, updated_at)
         SELECT u.id, $1, u.d, false, u.s, $5, now(), $4, $4, $4, now() FROM unnest($2::int[], $3::text[], $6::int[]) AS u(id, d, s)
       ),
       l AS (
         INSERT INTO journal_entry_lines (journal_entry_id, client_account_id, line_id, posting_date, account_id, debit, credit, debit_fc, credit_fc, currency_code, exchange_rate)
         SELECT u.e, $1, u.k, '2026-06-15', u.a, u.dr, u.cr, u.dr, u.cr, 'NOK', 1 FROM unnest($7::int[], $8::int[], $9::int[], $10::numeric[], $11::numeric[]) AS u(e, k, a, dr, cr)
       )
       UPDATE ledger_chains SET last_number = $12, last_hash = $5 WHERE client_account_id = $1`,
      [
        clientAccountId,
        ids,
        ids.map((_, i) => `Bench ${n}/${i}`),
        userId,
        'f'.repeat(64),
        numbers,
        ids.flatMap((id) => [id, id]),
        ids.flatMap(() => [1, 2]),
        ids.flatMap(() => accounts),
        amounts.flatMap((a) => [a, '0']),
        amounts.flatMap((a) => ['0', a]),
        head + size,
      ],
    );
    await c.query('COMMIT');
    return true;
  } catch (e) {
    await c.query('ROLLBACK');
    throw e;
  }
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
    await rawBatch(conns[0]!, raw.account.id, rawAccounts, size, 0, raw.user.id);
    const rawRate = await rate(clients, seconds, (n, loop) => rawBatch(conns[loop]!, raw.account.id, rawAccounts, size, n, raw.user.id));
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
