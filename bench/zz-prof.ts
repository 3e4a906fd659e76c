process.env.NODE_ENV = 'production';
const { openDatabase } = await import('/work/main/src/db/database.ts');
const { applyMigrations } = await import('/work/main/src/db/migrate.ts');
const { ensureReferenceData } = await import('/work/main/src/db/reference-data.ts');
const { createSeed } = await import('/work/main/test/support/seed.ts');
const { createScratchDatabase } = await import('/work/main/test/support/scratch-database.ts');
const { createJournalEntry } = await import('/work/main/src/modules/journal-entries/journal-entries.service.ts');
const scratch = await createScratchDatabase('postgres://postgres@127.0.0.1:5432/postgres', 'prof');
const db = await openDatabase({ databaseUrl: scratch.url });
await applyMigrations(db.adapterFactory);
await ensureReferenceData(db.prisma);
const seed = createSeed(db.prisma);
const t = await seed.tenant();
const ctx = () => seed.contextOf(t.user);
const input = (n: number) => ({ input: { clientAccountId: t.account.id, lines: [
  { postingDate: new Date('2026-06-15'), accountCode: '6300', debit: `${100 + n}`, credit: '0' },
  { postingDate: new Date('2026-06-15'), accountCode: '1920', debit: '0', credit: `${100 + n}` }] } });
for (let i = 0; i < 30; i++) await createJournalEntry(ctx(), input(i) as never);
let t0 = performance.now();
for (let i = 0; i < 200; i++) await createJournalEntry(ctx(), input(i) as never);
console.log('createJournalEntry ms/entry', ((performance.now() - t0) / 200).toFixed(2));

t0 = performance.now();
for (let i = 0; i < 200; i++) await db.prisma.$transaction(async (tx) => { await tx.$queryRawUnsafe('SELECT 1'); });
console.log('empty $transaction + SELECT 1 ms', ((performance.now() - t0) / 200).toFixed(2));
t0 = performance.now();
for (let i = 0; i < 200; i++) await db.prisma.$queryRawUnsafe('SELECT 1');
console.log('SELECT 1 ms', ((performance.now() - t0) / 200).toFixed(2));
await db.close();
await scratch.drop();
process.exit(0);
