import type { Server } from 'node:http';
import { createApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/database.ts';
import { DataDirLockedError } from './db/lock.ts';
import { applyMigrations } from './db/migrate.ts';
import { ensureReferenceData } from './db/reference-data.ts';
import { createLogger } from './shared/logger.ts';
import { answerClientErrors } from './shared/client-errors.ts';
import { startJobs } from './jobs/runner.ts';
import { createMailer } from './mail/mailer.ts';
import { DEMO_LOGIN, seedDemo } from './admin/seed-demo.ts';

/**
 * When each start-up phase began and ended, in ms since the process started (performance.now()'s
 * origin); `modules` is the loading of the code before main() runs. Logged at debug level
 * ('start-up phases'); npm run bench -- cold-start prints them.
 */
const phases: Record<string, [number, number]> = { modules: [0, Math.round(performance.now())] };
async function phase<T>(name: string, work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await work();
  } finally {
    phases[name] = [Math.round(start), Math.round(performance.now())];
  }
}

/** npm start: open the database, migrate, seed reference data (and the demo on a new embedded db), listen. */
async function main(): Promise<void> {
  const started = performance.now();
  const config = loadConfig();
  const logger = createLogger(config.logLevel, { asyncOutput: true });
  const db = await phase('database', () =>
    openDatabase(config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir, purpose: 'server' }),
  );
  const applied = await phase('migrations', () => applyMigrations(db.adapterFactory));
  if (applied.length) logger.info({ applied }, 'migrations applied');
  await phase('referenceData', () => ensureReferenceData(db.prisma));
  let demo = false;
  if (config.seedDemo && (await db.prisma.user.count()) === 0) {
    await phase('demo', () => seedDemo(db.prisma));
    demo = true;
  }
  const { express } = await phase('app', () => createApp({ config, db, logger }));
  // the job queue installs or upgrades its schema and queues itself, then works every queue
  const mailer = createMailer(config);
  const jobs = await phase('jobs', () => startJobs({ db, config, logger, mailer }));
  const server: Server = express.listen(config.port, config.host);
  answerClientErrors(server);
  await phase('listen', () => new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject)));
  const ms = Math.round(performance.now() - started);
  logger.debug({ phases }, 'start-up phases');
  logger.info({ database: db.describe, port: config.port, ms }, 'listening');
  console.log(
    [
      '',
      `  Accounting API on ${config.baseUrl}  (${db.describe}, ready in ${ms} ms)`,
      `  GraphiQL:  ${config.baseUrl}/graphql   (click Sign in)`,
      `  OAuth 2.0: ${config.baseUrl}/.well-known/oauth-authorization-server`,
      `  REST:      ${config.baseUrl}/api/v2/...   (docs: ${config.baseUrl}/api/v2/docs, OpenAPI: /api/v2/openapi.json)`,
      `  MCP:       ${config.baseUrl}/mcp   (tools for AI agents; OAuth discovery from its 401)`,
      `  Mail:      ${mailer.describe}`,
      `  Token:     curl -s -X POST ${config.baseUrl}/v2/oauth/login -H 'Content-Type: application/json' \\`,
      demo || (await db.prisma.user.count({ where: { email: DEMO_LOGIN.email } }))
        ? `               -d '{"email":"${DEMO_LOGIN.email}","password":"${DEMO_LOGIN.password}"}'   (demo login)`
        : `               -d '{"email":"<you>","password":"<yours>"}'   (create users with npm run admin -- create-user)`,
      demo ? '  Demo data seeded on this new database (npm run admin -- seed-demo does it again elsewhere).' : '',
      '',
    ]
      .filter((l) => l !== '')
      .join('\n'),
  );

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    // running jobs get 3 of the 5 seconds; one still running is failed and retried by another process or the next start
    const jobsStopped = jobs.stop({ timeoutMs: 3000 });
    server.close(() => {
      jobsStopped
        .then(() => mailer.close())
        .then(() => db.close())
        .finally(() => process.exit(0));
    });
    server.closeAllConnections();
    setTimeout(() => process.exit(1), 5000).unref();
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((e: unknown) => {
  if (e instanceof ConfigError || e instanceof DataDirLockedError) console.error(e.message);
  else console.error(e);
  process.exit(1);
});
