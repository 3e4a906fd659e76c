import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../src/db/database.ts';
import { benchTargets, body, prepare, rate } from './ledger.ts';
import { scratchPostgres } from './scratch-db.ts';
import { startServer } from './server-process.ts';

/**
 * npm run bench -- changes [--seconds N]: posted journal entries per second through
 * POST /api/v2/journal-entries/ (2-line entries, 1 and 8 clients) with the change outbox (the
 * journal_entries trigger recording each posting in `changes`) and without it (the trigger disabled),
 * in the same run on the same database, runs interleaved (with, without, without, with) so drift
 * weighs on both; prints both rates and the slowdown (goal: ≤ 10%). Delivery latency of webhooks is
 * the webhooks part's.
 */
const WARM_UP = 30;

async function setOutbox(open: () => Promise<Database>, on: boolean): Promise<void> {
  const db = await open();
  try {
    await db.prisma.$executeRawUnsafe(`ALTER TABLE journal_entries ${on ? 'ENABLE' : 'DISABLE'} TRIGGER changes_outbox`);
  } finally {
    await db.close();
  }
}

export async function changes(args: string[] = []): Promise<void> {
  const at = args.indexOf('--seconds');
  const seconds = at >= 0 ? Number(args[at + 1]) : 8;
  const dir = mkdtempSync(join(tmpdir(), 'regnskap-changes-'));
  const scratch = await scratchPostgres('changes');
  console.log(`changes: posted journal entries per second with the change outbox and without it, ${seconds} s per run, two runs each`);
  console.log(`  ${'database'.padEnd(11)} ${'clients'.padStart(7)} ${'with/s'.padStart(8)} ${'without/s'.padStart(10)} ${'slower'.padStart(7)}  failures`);
  const targets = benchTargets(dir, scratch);
  try {
    for (const target of targets) {
      const db = await target.open();
      const { api } = await prepare(db);
      await db.close();
      for (const clients of [1, 8]) {
        const totals = { with: 0, without: 0, failures: 0 };
        for (const outbox of [true, false, false, true]) {
          await setOutbox(target.open, outbox);
          const server = await startServer({ ...target.env, API_RATE_LIMIT: 'off' });
          try {
            const post = async (n: number) => {
              const res = await fetch(`${server.base}/api/v2/journal-entries/`, {
                method: 'POST',
                headers: { authorization: `Bearer ${api.user.token}`, 'content-type': 'application/json' },
                body: JSON.stringify(body(api.account.id, 2, n)),
              });
              const text = await res.text();
              if (res.status !== 201 && res.status !== 503) console.error(`  post: ${res.status} ${text.slice(0, 300)}`);
              return res.status === 201;
            };
            // a loaded machine sheds load (503) while the new server warms up: wait and retry, as a client does
            for (let ok = 0, tries = 0; ok < WARM_UP; tries++) {
              if (await post(tries)) ok++;
              else if (tries > WARM_UP * 10) throw new Error('warm-up posts keep failing');
              else await new Promise((r) => setTimeout(r, 500));
            }
            const r = await rate(clients, seconds, post);
            totals[outbox ? 'with' : 'without'] += r.perSecond / 2;
            totals.failures += r.failures;
          } finally {
            await server.stop();
          }
        }
        await setOutbox(target.open, true);
        const slower = (1 - totals.with / totals.without) * 100;
        console.log(
          `  ${target.label.padEnd(11)} ${String(clients).padStart(7)} ${totals.with.toFixed(0).padStart(8)} ${totals.without.toFixed(0).padStart(10)} ${`${slower.toFixed(1)}%`.padStart(7)}  ${totals.failures}`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await scratch?.drop();
  }
}
