/**
 * Benchmarks, run on demand (never part of npm test), in production mode like npm start:
 *   npm run bench                  everything
 *   npm run bench -- overhead      what the framework adds: raw Prisma vs GraphQL execution, GraphQL
 *                                  CPU alone, REST vs GraphQL over HTTP, statements per request, the
 *                                  { __typename } floor vs bare graphql-yoga, token costs
 *   npm run bench -- cold-start [runs]
 *                                  npm start to the first authenticated answer, PGlite and PostgreSQL
 *   npm run bench -- lists         latency and SQL statements of the widest lists
 *   npm run bench -- load [connections...] [--seconds N]
 *                                  10 and 50 connections on GET /api/v2/items for 15 s each
 *   npm run bench -- ledger-batch [--seconds N] [--size N] [--clients N]   bulk posting vs raw unnest INSERTs (PostgreSQL)
 *   npm run bench -- ledger [--seconds N]
 *                                  posted journal entries per second through REST (2 and 10 lines, 1 and 8
 *                                  clients) next to raw SQL writing the same rows, and their ratio
 *   npm run bench -- changes [--seconds N]
 *                                  posted journal entries per second with the change outbox and without
 *                                  it (its trigger disabled), 1 and 8 clients, and the slowdown
 *   npm run bench -- reports [--lines N] [--runs N]
 *                                  1,000,000 posted lines (PostgreSQL): trial balance and balance sheet
 *                                  (service and route) against the raw SQL aggregate, general-ledger
 *                                  pages, XLSX and PDF, the SAF-T export's time and the server's peak RSS
 *   npm run bench -- fairness [--seconds N] [--per-page N]
 *                                  user B's GET /api/v2/items p50/p90/p99 alone and while user A runs 20
 *                                  concurrent heavy GraphQL queries (99 aliases, within the query limits)
 *   npm run bench -- webhooks      webhook delivery latency p50/p99, write commit to a local receiver
 *   npm run bench -- saft-import [--lines N]
 *                                  a SAF-T file of N lines (default 1,000,000) POSTed as a ZIP and imported
 *                                  end to end on PostgreSQL: time, job time, lines/s, server peak RSS, next to
 *                                  raw SQL writing as many entries in one transaction (not in "all")
 * PostgreSQL is measured in a scratch database created on BENCH_POSTGRES_URL's server (default the
 * machine's own, postgres://postgres@127.0.0.1:5432/postgres) and dropped afterwards.
 */
// graphql-js reads NODE_ENV when it loads (dev-mode checks), so it is set before any import
process.env.NODE_ENV ??= 'production';
const which = process.argv[2] ?? 'all';
// servers under load run dist/server.mjs (what npm start runs): bundle the current sources first, so
// a benchmark never measures the code of an earlier build
await (await import('../src/bundle.mjs')).bundle();
const args = process.argv.slice(3);
if (which === 'all' || which === 'overhead') await (await import('./overhead.ts')).overhead();
if (which === 'all' || which === 'cold-start') await (await import('./cold-start.ts')).coldStart(which === 'cold-start' ? Number(args[0] ?? 5) : 5);
if (which === 'all' || which === 'lists') await (await import('./list-latency.ts')).listLatency();
if (which === 'all' || which === 'load') await (await import('./load.ts')).load(args);
if (which === 'all' || which === 'ledger') await (await import('./ledger.ts')).ledger(which === 'ledger' ? args : []);
if (which === 'all' || which === 'changes') await (await import('./changes.ts')).changes(which === 'changes' ? args : []);
if (which === 'all' || which === 'ledger-batch') await (await import('./ledger-batch.ts')).ledgerBatch(which === 'ledger-batch' ? args : []);
if (which === 'all' || which === 'reports') await (await import('./reports.ts')).reports(which === 'reports' ? args : []);
if (which === 'all' || which === 'webhooks') await (await import('./webhooks.ts')).webhooks();
if (which === 'saft-import') await (await import('./saft-import.ts')).saftImportBench(args);
if (which === 'all' || which === 'fairness') await (await import('./fairness.ts')).fairness(which === 'fairness' ? args : []);
process.exit(0);
