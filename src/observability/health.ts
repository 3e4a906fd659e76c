import type { RequestHandler } from 'express';
import type { Database } from '../db/database.ts';
import { migrationsCurrent } from '../db/migrate.ts';

/** What the process's readiness depends on besides the database: the job runner (the server sets it once started). */
export interface Readiness {
  /** whether this process's job workers run: undefined until the server has started them */
  jobs?: () => boolean;
}

type Check = 'ok' | 'failing' | 'starting';

/** A check that takes longer than this is failing: a probe must answer in time. */
const CHECK_TIMEOUT_MS = 2_000;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * GET /health/live: the process answers (200 {status: "ok"}) — an orchestrator restarts it when not.
 * GET /health/ready: it can serve — the database answers, its migrations are this code's, the job
 * workers run: 200 {status: "ok", checks}, else 503 {status: "unavailable", checks} naming the
 * failing ones, so a load balancer sends no traffic to it meanwhile. Neither passes admission control
 * or needs a token (app.ts); GET /health stays as it was.
 */
export function healthRoutes(db: Database, readiness: Readiness): { live: RequestHandler; ready: RequestHandler } {
  return {
    live: (_req, res) => {
      res.setHeader('Cache-Control', 'no-store');
      res.json({ status: 'ok' });
    },
    ready: (_req, res) => {
      void (async () => {
        const checks: Record<'database' | 'migrations' | 'jobs', Check> = { database: 'failing', migrations: 'failing', jobs: 'starting' };
        try {
          await withTimeout(db.prisma.$queryRaw`SELECT 1`, CHECK_TIMEOUT_MS);
          checks.database = 'ok';
          checks.migrations = (await withTimeout(migrationsCurrent(db.prisma), CHECK_TIMEOUT_MS).catch(() => false)) ? 'ok' : 'failing';
        } catch {
          // the database is away: both stay failing
        }
        if (readiness.jobs) checks.jobs = readiness.jobs() ? 'ok' : 'failing';
        const ok = Object.values(checks).every((c) => c === 'ok');
        res.setHeader('Cache-Control', 'no-store');
        res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'unavailable', checks });
      })();
    },
  };
}
