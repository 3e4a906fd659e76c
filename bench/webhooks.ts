import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openDatabase, type Database } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { ensureReferenceData } from '../src/db/reference-data.ts';
import '../src/jobs/all.ts';
import { migrateJobs } from '../src/jobs/runner.ts';
import { createLogger } from '../src/shared/logger.ts';
import { sequenceChanges } from '../src/modules/changes/changes.service.ts';
import { configureWebhooks, createWebhook, deliverDue, dispatchChanges } from '../src/modules/webhooks/webhooks.service.ts';
import { createSeed } from '../test/support/seed.ts';
import { scratchPostgres } from './scratch-db.ts';

/**
 * Webhook delivery latency to a local receiver: from the commit of a write (a project inserted, its
 * change recorded by the outbox trigger) to the signed POST arriving, through the pipeline a
 * dispatch and a deliver job run (sequence, dispatch by position, resolve and check the URL, sign,
 * POST, record the attempt), one write at a time. The job queue's polling (0.5 to 2 s by
 * configuration) comes on top and is not measured here.
 */
const WRITES = 200;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function measure(db: Database, label: string): Promise<void> {
  await applyMigrations(db.adapterFactory);
  await ensureReferenceData(db.prisma);
  await migrateJobs(db, createLogger('silent')); // deliveries enqueue their jobs (not run here)
  const seed = createSeed(db.prisma);
  const t = await seed.tenant();
  let arrived: (() => void) | undefined;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.statusCode = 204;
      res.end();
      arrived?.();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  configureWebhooks({ allowPrivateUrls: true });
  const ctx = seed.contextOf(t.user);
  const hook = await createWebhook(ctx, { input: { clientAccountId: t.account.id, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/bench` } });
  const times: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const got = new Promise<void>((r) => (arrived = r));
    const started = performance.now();
    await db.prisma.project.create({ data: { clientAccountId: t.account.id, name: `Bench ${i}`, sequenceNumber: i + 1 } });
    await sequenceChanges(db.prisma);
    await dispatchChanges(db.prisma);
    await deliverDue(db.prisma, hook.id);
    await got;
    times.push(performance.now() - started);
  }
  server.close();
  const sorted = times.slice(20).sort((a, b) => a - b); // the first 20 warm up
  console.log(`${label.padEnd(11)} webhook delivery, write → receiver (${sorted.length} writes): p50 ${pct(sorted, 50).toFixed(1)} ms, p99 ${pct(sorted, 99).toFixed(1)} ms`);
  await db.close();
}

export async function webhooks(): Promise<void> {
  await measure(await openDatabase({ memory: true }), 'PGlite');
  const scratch = await scratchPostgres('webhooks');
  if (!scratch) return;
  try {
    await measure(await openDatabase({ databaseUrl: scratch.url }), 'PostgreSQL');
  } finally {
    await scratch.drop();
  }
}
