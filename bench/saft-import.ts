import { readFileSync } from 'node:fs';
import { zipSync, strToU8 } from 'fflate';
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { ensureReferenceData } from '../src/db/reference-data.ts';
import { createSeed } from '../test/support/seed.ts';
import { vendorSaft } from '../test/saft-import/vendor-file.ts';
import { insertRawEntries, type RawTarget } from './raw-ledger.ts';
import { scratchPostgres } from './scratch-db.ts';
import { startServer } from './server-process.ts';

/**
 * npm run bench -- saft-import [--lines N] (issue 33): a SAF-T Financial 1.30 file of N lines (N/2
 * two-line transactions, the vendor-style file of test/saft-import) for a fresh client account on a
 * scratch PostgreSQL database, POSTed as a ZIP to /api/v2/saft-imports of a server running as its own
 * process, polled until COMPLETED. Prints the end-to-end time (upload, checks, job), the job's time
 * (created_at → finished_at), lines/s and the server's peak RSS (VmHWM) next to the goal (1,000,000
 * lines ≤ 5 minutes, RSS ≤ 512 MB). The baseline, in the same run once the server has stopped: the
 * same number of two-line entries written for a fresh client account by raw SQL in ONE transaction
 * (bench/raw-ledger.ts, the bulk posting's baseline too: 1,000 entries a statement, as the import
 * posts 1,000 a batch), and the ratio import ÷ raw (end to end and the job alone). The import does
 * more than the baseline: the upload, the XSD and the checks, the mapping, every rule of a posting,
 * the hash chain, the saft_import_entries references. BENCH_SERVER_LOG=/tmp/x writes the server's
 * log to /tmp/x.<port>.
 *
 * The default is 1,000,000 lines (326 MB of XML, 18 MB zipped: ~4 minutes; the module README's
 * "Size and speed" has the figures). The file is built as one string (vendorSaft), which bounds N
 * to what a V8 string holds (~1,500,000 lines).
 */
const peakRssMb = (pid: number) =>
  Math.round(Number(readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'))?.split(/\s+/)[1] ?? 0) / 1024);

export function transactions(lines: number) {
  return Array.from({ length: Math.ceil(lines / 2) }, (_, i) => {
    const amount = (100 + (i % 900)).toFixed(2);
    const date = `2025-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`;
    return {
      journal: 'GL',
      id: `T-${i + 1}`,
      date,
      description: `Bench ${i + 1}`,
      lines: [
        { account: '4000', side: 'D' as const, amount },
        { account: '1920', side: 'C' as const, amount },
      ],
    };
  });
}

export async function saftImportBench(args: string[] = []): Promise<void> {
  const lines = args.includes('--lines') ? Number(args[args.indexOf('--lines') + 1]) : 1_000_000;
  const scratch = await scratchPostgres('saft_import');
  if (!scratch) {
    console.log('saft-import: needs PostgreSQL (BENCH_POSTGRES_URL); skipped');
    return;
  }
  try {
    const db = await openDatabase({ databaseUrl: scratch.url });
    await applyMigrations(db.adapterFactory);
    await ensureReferenceData(db.prisma);
    const seed = createSeed(db.prisma);
    const t = await seed.tenant();
    const raw = await seed.tenant();
    const rawTarget: RawTarget = { clientAccountId: raw.account.id, accounts: await Promise.all(['4000', '1920'].map((c) => raw.ledgerAccount(c))), userId: raw.user.id, postingDate: '2025-06-15' };
    await db.close();

    let started = Date.now();
    const xml = vendorSaft('999999999', transactions(lines));
    const zip = zipSync({ 'saft.xml': strToU8(xml) }, { level: 6 });
    console.log(`saft-import: ${lines} lines, XML ${(xml.length / 1e6).toFixed(1)} MB, ZIP ${(zip.length / 1e6).toFixed(1)} MB (built in ${((Date.now() - started) / 1000).toFixed(1)} s)`);

    let measured: { total: number; job: number; rss: number } | undefined;
    const server = await startServer({ DATABASE_URL: scratch.url, API_RATE_LIMIT: 'off', REQUEST_BODY_TIMEOUT_MS: '600000' }, process.env.BENCH_SERVER_LOG ? { log: process.env.BENCH_SERVER_LOG } : {});
    try {
      started = Date.now();
      const form = new FormData();
      form.set('client_account_id', String(t.account.id));
      form.set('allow_other_organization', 'true');
      form.set('file', new Blob([zip], { type: 'application/zip' }), 'saft.zip');
      let res: Response;
      try {
        res = await fetch(`${server.base}/api/v2/saft-imports`, { method: 'POST', headers: { authorization: `Bearer ${t.user.token}` }, body: form });
      } catch (e) {
        let rss = 'gone (the process ended)';
        try {
          rss = `${peakRssMb(server.pid)} MB`;
        } catch {
          /* no /proc entry: the server died */
        }
        console.log(`  POST failed after ${((Date.now() - started) / 1000).toFixed(1)} s: ${(e as Error).message} (${String((e as Error).cause ?? '')}); server peak RSS ${rss}, ended: ${server.ended() ?? 'no'}`);
        await new Promise((r) => setTimeout(r, 500)); // the rest of a dying server's stderr
        console.log(`  the server's stderr, last lines:\n${server.stderrTail().split('\n').slice(-12).join('\n')}`);
        return;
      }
      const body = (await res.json()) as { id?: number };
      const accepted = Date.now();
      if (res.status !== 202) {
        console.log(`  POST answered ${res.status}: ${JSON.stringify(body).slice(0, 400)}`);
        console.log(`  server peak RSS ${peakRssMb(server.pid)} MB`);
        return;
      }
      let resets = 0;
      let row: { status: string; created_at: string; finished_at: string | null; errors: unknown; summary: unknown };
      for (;;) {
        await new Promise((r) => setTimeout(r, 500));
        try {
          row = (await (await fetch(`${server.base}/api/v2/saft-imports/${body.id}`, { headers: { authorization: `Bearer ${t.user.token}` } })).json()) as typeof row;
        } catch (e) {
          // a reset keep-alive connection while the server's event loop was blocked (its 5 s keep-alive
          // timer fires before it reads the waiting request) is not a dead server: poll again
          if (!server.ended() && resets++ < 20) {
            console.log(`  a poll failed ${((Date.now() - accepted) / 1000).toFixed(1)} s into the job (${String((e as Error).cause ?? (e as Error).message)}); the server runs: polling again`);
            continue;
          }
          console.log(`  the server stopped answering ${((Date.now() - accepted) / 1000).toFixed(1)} s into the job (POST took ${((accepted - started) / 1000).toFixed(1)} s): ${(e as Error).message} (${String((e as Error).cause ?? '')}); the server ended: ${server.ended() ?? 'no, still running'}`);
          console.log(`  the server's stderr, last lines:\n${server.stderrTail().split('\n').slice(-12).join('\n')}`);
          return;
        }
        if (row.status === 'COMPLETED' || row.status === 'FAILED') break;
      }
      const total = (Date.now() - started) / 1000;
      const job = (Date.parse(row.finished_at!) - Date.parse(row.created_at)) / 1000;
      const rss = peakRssMb(server.pid);
      console.log(`  status ${row.status}${row.status === 'FAILED' ? `: ${JSON.stringify(row.errors).slice(0, 400)}` : ''}`);
      console.log(`  ${'end to end (POST → COMPLETED)'.padEnd(34)} ${total.toFixed(1).padStart(8)} s  ${(lines / total).toFixed(0).padStart(8)} lines/s`);
      console.log(`  ${'  of it the POST (upload, checks)'.padEnd(34)} ${((accepted - started) / 1000).toFixed(1).padStart(8)} s`);
      console.log(`  ${'the job (created → finished)'.padEnd(34)} ${job.toFixed(1).padStart(8)} s  ${(lines / job).toFixed(0).padStart(8)} lines/s`);
      console.log(`  server peak RSS (VmHWM)            ${String(rss).padStart(8)} MB`);
      if (row.status === 'COMPLETED') measured = { total, job, rss };
    } finally {
      await server.stop();
    }
    if (!measured) return;
    const entries = Math.ceil(lines / 2);
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    let rawSeconds: number;
    try {
      started = Date.now();
      await client.query('BEGIN');
      for (let first = 0; first < entries; first += 1000) await insertRawEntries(client, rawTarget, first, Math.min(1000, entries - first));
      await client.query('COMMIT');
      rawSeconds = (Date.now() - started) / 1000;
    } finally {
      await client.end();
    }
    const { total, job, rss } = measured;
    console.log(`  ${`raw SQL (${entries} entries, 1 tx)`.padEnd(34)} ${rawSeconds.toFixed(1).padStart(8)} s  ${(lines / rawSeconds).toFixed(0).padStart(8)} lines/s`);
    const scaled = (total * 1_000_000) / lines;
    console.log(`  goal 1,000,000 lines ≤ 300 s, RSS ≤ 512 MB: ${lines >= 1_000_000 ? (total <= 300 && rss <= 512 ? 'met' : 'NOT met') : `not measured at this size (linear: ${scaled.toFixed(0)} s)`}`);
    console.log(`  import ÷ raw SQL: end to end ${(total / rawSeconds).toFixed(1)}x, the job ${(job / rawSeconds).toFixed(1)}x`);
  } finally {
    await scratch.drop();
  }
}
