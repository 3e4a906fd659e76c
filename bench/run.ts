import { coldStart } from './cold-start.ts';
import { listLatency } from './list-latency.ts';

/**
 * Benchmarks, run on demand (never part of npm test):
 *   npm run bench                  everything
 *   npm run bench -- cold-start    server start to first response on PGlite
 *   npm run bench -- lists         latency and SQL statements of the widest lists (PGlite; and
 *                                  PostgreSQL when BENCH_DATABASE_URL points at an empty database)
 */
const which = process.argv[2] ?? 'all';
if (which === 'all' || which === 'cold-start') await coldStart();
if (which === 'all' || which === 'lists') await listLatency();
process.exit(0);
