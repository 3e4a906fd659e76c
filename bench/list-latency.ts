import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { ensureReferenceData } from '../src/db/reference-data.ts';
import { createLogger } from '../src/shared/logger.ts';
import { createSeed } from '../test/support/seed.ts';
import { scratchPostgres } from './scratch-db.ts';

/** Latency (sequential HTTP requests) and SQL statements per request of the widest list queries. */
const REQUESTS = 200;

async function measure(db: Database, label: string): Promise<void> {
  await applyMigrations(db.adapterFactory);
  await ensureReferenceData(db.prisma);
  let statements = 0;
  (db.prisma as unknown as { $on(e: 'query', cb: () => void): void }).$on('query', () => statements++);
  const seed = createSeed(db.prisma);
  const t = await seed.tenant();
  const [piece, kg] = [await seed.unitId('H87'), await seed.unitId('KGM')];
  const tax = await t.taxCode('3');
  const partner = await db.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kunde AS', isCustomer: true } });
  await db.prisma.item.createMany({
    data: Array.from({ length: 1000 }, (_, i) => ({
      clientAccountId: t.account.id, itemNo: `B-${String(i).padStart(4, '0')}`, name: `Vare ${i}`,
      salesUnitId: i % 2 ? piece : kg, stockUnitId: piece, taxCodeId: tax, price: '99.900000',
    })),
  });
  const items = await db.prisma.item.findMany({ where: { clientAccountId: t.account.id }, select: { id: true }, take: 10 });
  for (let c = 0; c < 60; c++) {
    await db.prisma.itemCollection.create({
      data: {
        clientAccountId: t.account.id, collectionType: c % 3 ? 'TEMPLATE' : 'ORDER', name: `Samling ${c}`,
        entries: { create: items.map((it) => ({ clientAccountId: t.account.id, itemId: it.id, quantity: '1', price: '99.9', unitId: piece, taxCodeId: tax, businessPartnerId: partner.id })) },
      },
    });
  }

  const config = loadConfig({ PORT: '0', LOG_LEVEL: 'silent' });
  const { express } = await createApp({ config, db, logger: createLogger('silent') });
  const server: Server = express.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const run = async (name: string, path: string) => {
    const times: number[] = [];
    let perRequest = 0;
    for (let i = 0; i < REQUESTS; i++) {
      statements = 0;
      const start = performance.now();
      const res = await fetch(base + path, { headers: { authorization: `Bearer ${t.user.token}` } });
      await res.arrayBuffer();
      times.push(performance.now() - start);
      if (!res.ok) throw new Error(`${path}: ${res.status}`);
      perRequest = statements;
    }
    times.sort((a, b) => a - b);
    const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1);
    console.log(`[${label}] ${name}: median ${q(0.5)} ms, p95 ${q(0.95)} ms, ${perRequest} SQL statements per request (${REQUESTS} sequential requests)`);
  };
  await run('GET /items per_page=50 with sales_unit,stock_unit,tax_code', `/api/v2/items?client_account_id=${t.account.id}&per_page=50&with=sales_unit,stock_unit,tax_code`);
  await run(
    'GET /item-collections per_page=50 with all entry relations (500 entries)',
    `/api/v2/item-collections?client_account_id=${t.account.id}&per_page=50&with=entries,entries.item,entries.unit,entries.tax_code_details,entries.business_partner,entries.document_lines`,
  );
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await db.close();
}

export async function listLatency(): Promise<void> {
  const log = { log: [{ level: 'query' as const, emit: 'event' as const }] };
  await measure(await openDatabase({ memory: true }, log), 'PGlite');
  const scratch = await scratchPostgres('lists');
  if (!scratch) return;
  try {
    await measure(await openDatabase({ databaseUrl: scratch.url }, log), 'PostgreSQL');
  } finally {
    await scratch.drop();
  }
}
