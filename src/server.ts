import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from './config.ts';
import { isNewDataDir, openDatabase, type Database } from './db/database.ts';
import { osloDay, usableTemplate } from './db/template.mjs';
import { DataDirLockedError } from './db/lock.ts';
import { applyMigrations } from './db/migrate.ts';
import { ensureReferenceData } from './db/reference-data.ts';
import { createLogger, type Logger } from './shared/logger.ts';
import type { JobRunner } from './jobs/runner.ts';
import type { Mailer } from './mail/mailer.ts';
import type { AdminSocket } from './backup/admin-socket.ts';
import { answerClientErrors } from './http/client-errors.ts';
import { applyServerTimeouts, serverOptions } from './http/body-timeout.ts';
import { INTEGRATION_SERVICES } from './integrations/services.ts';

/**
 * The rest of the server (GraphQL schema, REST adapter, OAuth provider, job queue: most of the code
 * and packages) is imported while the database opens and migrations are checked, not before.
 */
const importApp = () =>
  Promise.all([import('./app.ts'), import('./jobs/runner.ts'), import('./mail/mailer.ts'), import('./admin/seed-demo.ts'), import('./backup/admin-socket.ts')]).then(
    ([app, runner, mailer, demo, adminSocket]) => ({ ...app, ...runner, ...mailer, ...demo, ...adminSocket }),
  );

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

/** One line on the terminal for a start-up phase that takes seconds, so a first start never looks hung. */
const progress = (line: string) => console.log(`  ${line}`);

/** npm start: open the database, migrate, seed reference data (and the demo on a new embedded db), listen. */
async function main(): Promise<void> {
  const started = performance.now();
  const config = loadConfig();
  const logger = createLogger(config.logLevel, { asyncOutput: true, format: config.logFormat });
  const imported = phase('imports', importApp);
  imported.catch(() => undefined); // awaited below; a failure to open the database is reported first
  // A new embedded database is a copy of the install's template (src/db/template.mjs) when this build made one.
  const pgliteDir = config.databaseUrl ? undefined : join(config.dataDir, 'pglite');
  const template = pgliteDir && isNewDataDir(pgliteDir) ? usableTemplate(fileURLToPath(import.meta.url), { demo: config.seedDemo }) : undefined;
  if (pgliteDir && isNewDataDir(pgliteDir)) {
    progress(
      template === 'demo'
        ? `Creating the embedded database in ${pgliteDir} from this install's template (demo year up to ${osloDay()}) ...`
        : `Creating the embedded database in ${pgliteDir}${template ? " from this install's template" : ' (first start only, a few seconds)'} ...`,
    );
  }
  const db = await phase('database', () =>
    openDatabase(config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir, purpose: 'server', template }),
  );
  const applied = await phase('migrations', () => applyMigrations(db.adapterFactory, { onApply: () => progress('Migrating the database ...') }));
  if (applied.length) logger.info({ applied }, 'migrations applied');
  await phase('referenceData', () => ensureReferenceData(db.prisma));
  const { createApp, createMailer, migrateJobs, startJobs, seedDemo, findDemo, startAdminSocket } = await imported;
  // the job queue's schema and queues, before the demo seed or requests can enqueue jobs (one statement when in place)
  await phase('jobsSchema', () => migrateJobs(db, logger));
  let demo = template === 'demo';
  if (config.seedDemo && !demo && (await db.prisma.user.count()) === 0) {
    progress('Seeding the demo year (first start only) ...');
    await phase('demo', () => seedDemo(db.prisma));
    demo = true;
  }
  const demoInfo = await findDemo(db.prisma);
  const { express, admission, metrics, readiness } = await phase('app', () => createApp({ config, db, logger, demo: demoInfo }));
  const server: Server = createServer(serverOptions, express);
  applyServerTimeouts(server, config);
  answerClientErrors(server);
  server.listen(config.port, config.host);
  await phase('listen', () => new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject)));
  admission.forgetDelay(); // the start-up's own work is no load to refuse requests for
  const ms = Math.round(performance.now() - started);
  // The job queue's workers start once requests are answered; failing to start them still stops the process.
  const mailer = createMailer(config);
  const jobsStarted = phase('jobs', () => startJobs({ db, config, logger, mailer, metrics }));
  // the embedded database's control channel: npm run admin -- backup asks this process (src/backup/README.md)
  const adminSocket = config.databaseUrl
    ? Promise.resolve(undefined)
    : startAdminSocket({ config, db, logger }).catch((err: unknown) => void logger.warn({ err }, 'admin socket: not listening; npm run admin -- backup cannot ask this server'));
  shutdownOn(['SIGINT', 'SIGTERM'], { server, jobsStarted, mailer, db, logger, adminSocket });
  await adminSocket;
  const jobs = await jobsStarted;
  readiness.jobs = jobs.running;
  metrics.watchJobQueue(jobs.depth);
  // Services with no <SERVICE>_URL are answered by the sandbox: started now (once listening), so its
  // address can be shown; a server with every upstream configured never loads it.
  const sandboxed = INTEGRATION_SERVICES.filter((s) => !config.integrations.services[s].url);
  const sandboxAt = sandboxed.length
    ? await import('./integrations/sandbox/server.ts').then((m) => m.sandbox(config.integrations)).then(
        (s) => `${s.publicUrl}   (${sandboxed.length === INTEGRATION_SERVICES.length ? 'every external service' : sandboxed.join(', ')}; set <SERVICE>_URL for real ones)`,
        (e: unknown) => `could not start (${(e as Error).message}); calls to ${sandboxed.join(', ')} will fail`,
      )
    : undefined;
  // the workers' and the sandbox's start are the start-up's work too, not load: no request after them is refused for their delay
  admission.forgetDelay();
  logger.debug({ phases }, 'start-up phases');
  logger.info({ database: db.describe, port: config.port, ms }, 'listening');
  console.log(
    [
      '',
      `  Accounting API on ${config.baseUrl}  (${db.describe}, ready in ${ms} ms)`,
      `  Start:     ${config.baseUrl}/   (these links${demoInfo ? ' and the demo login' : ''} as a page)`,
      `  GraphiQL:  ${config.baseUrl}/graphql   (click Sign in)`,
      `  OAuth 2.0: ${config.baseUrl}/.well-known/oauth-authorization-server`,
      `  REST:      ${config.baseUrl}/api/v2/...   (docs: ${config.baseUrl}/api/v2/docs, OpenAPI: /api/v2/openapi.json)`,
      `  MCP:       ${config.baseUrl}/mcp   (tools for AI agents; OAuth discovery from its 401)`,
      `  Mail:      ${mailer.describe}`,
      sandboxAt ? `  Sandbox:   ${sandboxAt}` : '',
      `  Token:     curl -s -X POST ${config.baseUrl}/v2/oauth/login -H 'Content-Type: application/json' \\`,
      demoInfo
        ? `               -d '{"email":"${demoInfo.email}","password":"${demoInfo.password}"}'   (demo login)`
        : `               -d '{"email":"<you>","password":"<yours>"}'   (create users with npm run admin -- create-user)`,
      demoInfo ? `  Demo:      ${demoInfo.companyName}, client account ${demoInfo.clientAccountId} (client_account_id=${demoInfo.clientAccountId} in REST)` : '',
      demo ? '  Demo data seeded on this new database (npm run admin -- seed-demo does it again elsewhere).' : '',
      '',
    ]
      .filter((l) => l !== '')
      .join('\n'),
  );
}

/**
 * Graceful shutdown on the signals, from the moment the server listens (the job queue may still be
 * starting): the server stops taking connections, running jobs get 3 of the 5 seconds (one still
 * running is failed and retried by another process or the next start), then mail, the admin socket and the database close.
 */
function shutdownOn(
  signals: NodeJS.Signals[],
  { server, jobsStarted, mailer, db, logger, adminSocket }: { server: Server; jobsStarted: Promise<JobRunner>; mailer: Mailer; db: Database; logger: Logger; adminSocket: Promise<AdminSocket | undefined> },
): void {
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    const jobsStopped = jobsStarted.then((jobs) => jobs.stop({ timeoutMs: 3000 }), () => undefined);
    server.close(() => {
      jobsStopped
        .then(() => mailer.close())
        .then(() => adminSocket.then((socket) => socket?.close())) // removes DATA_DIR/admin.sock, once a backup it writes has ended
        .then(() => db.close())
        .then(() => (globalThis as { __otelShutdown?: () => Promise<void> }).__otelShutdown?.()) // traces still buffered (src/observability/tracing.mjs)
        .finally(() => process.exit(0));
    });
    // requests in flight are finished: only idle connections close now, and keep-alive ones as each
    // request on them ends; what still runs after 4 s is cut (closeAllConnections), then the exit
    server.closeIdleConnections();
    setInterval(() => server.closeIdleConnections(), 100).unref();
    setTimeout(() => server.closeAllConnections(), 4000).unref();
    setTimeout(() => process.exit(1), 5000).unref();
  };
  for (const signal of signals) process.on(signal, () => shutdown(signal));
}

main().catch((e: unknown) => {
  if (e instanceof ConfigError || e instanceof DataDirLockedError) console.error(e.message);
  else console.error(e);
  process.exit(1);
});
