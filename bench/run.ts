import { coldStart } from './cold-start.ts';
import { listLatency } from './list-latency.ts';
import { load } from './load.ts';

/**
 * Benchmarks, run on demand (never part of npm test):
 *   npm run bench                  everything
 *   npm run bench -- cold-start [runs]
 *                                  server start to the first authenticated answer, PGlite and
 *                                  PostgreSQL (a scratch database on the machine's server)
 *   npm run bench -- lists         latency and SQL statements of the widest lists (PGlite; and
 *                                  PostgreSQL when BENCH_DATABASE_URL points at an empty database)
 *   npm run bench -- load [connections] [seconds]
 *                                  200 connections on GET /api/v2/items for 20 s, admission control
 *                                  off and on (PGlite; PostgreSQL with BENCH_DATABASE_URL)
 */
const which = process.argv[2] ?? 'all';
if (which === 'all' || which === 'cold-start') await coldStart(which === 'cold-start' ? Number(process.argv[3] ?? 3) : 3);
if (which === 'all' || which === 'lists') await listLatency();
if (which === 'all' || which === 'load') await load(Number(process.argv[3] ?? 200), Number(process.argv[4] ?? 20));
process.exit(0);
