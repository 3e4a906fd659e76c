import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { sandboxError, setupsOf, type SandboxEnv } from './define.ts';
import type { IntegrationsConfig } from '../../config.ts';
import { INTEGRATION_SERVICES } from '../services.ts';

/**
 * The sandbox: simulators of the external services' APIs, like a payment provider's test mode. Every
 * service whose URL is not configured is served by it, over real HTTP, so a connector runs the same
 * code against the sandbox as against the real service. It starts in this process on the first call
 * that needs it and keeps its state in memory: deterministic data derived from what it is asked
 * (organisation numbers, years), and what it has been sent since it started.
 *
 * Each service's simulator is registered with defineSandbox (./define.ts) from its own file (imported by ./all.ts)
 * and mounted at /<service>. Routes under /<service>/sandbox/... are the sandbox's own controls (a
 * tax assessment decided, an earlier filing placed): they exist in no real service, and tests and the
 * walkthrough in the README use them.
 */
export interface RunningSandbox {
  /** the address the connectors call */
  url: string;
  /** the address a browser is sent to (SANDBOX_PUBLIC_URL, else url) */
  publicUrl: string;
  close(): Promise<void>;
}

let running: Promise<RunningSandbox> | undefined;

type SandboxConfig = Pick<IntegrationsConfig, 'sandboxUrl' | 'sandboxPort' | 'sandboxHost' | 'sandboxPublicUrl'>;

/**
 * The sandbox of this process: the shared one at SANDBOX_URL when it is set (npm run sandbox; several
 * server processes must see one sandbox's state, which lives in its memory), else started here on
 * first use with the first configuration that asks for it (SANDBOX_PORT, SANDBOX_PUBLIC_URL). It does
 * not keep the process alive.
 */
export function sandbox(config: SandboxConfig): Promise<RunningSandbox> {
  if (config.sandboxUrl) {
    const url = config.sandboxUrl;
    return Promise.resolve({ url, publicUrl: config.sandboxPublicUrl ?? url, close: () => Promise.resolve() });
  }
  running ??= start(config).catch((e: unknown) => {
    running = undefined; // the next call tries again (a port in use may be freed)
    throw e;
  });
  return running;
}

async function start(config: SandboxConfig): Promise<RunningSandbox> {
  await import('./all.ts');
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '5mb' }));
  app.use(express.urlencoded({ extended: false }));
  let publicUrl = config.sandboxPublicUrl ?? '';
  for (const service of INTEGRATION_SERVICES) {
    const router = express.Router();
    const env: SandboxEnv = { publicBase: () => `${publicUrl}/${service}` };
    for (const setup of setupsOf(service)) setup(router, env);
    app.use(`/${service}`, router);
  }
  app.use((req, res) => sandboxError(res, 404, `The sandbox has no ${req.method} ${req.path}`));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = (err as { status?: number })?.status;
    if (status && status >= 400 && status < 500) return sandboxError(res, status, (err as Error).message);
    sandboxError(res, 500, `Sandbox failure: ${(err as Error)?.message ?? String(err)}`);
  });
  const server: Server = createServer(app);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.sandboxPort, config.sandboxHost, () => resolve());
  });
  server.unref();
  const url = `http://${config.sandboxHost}:${(server.address() as AddressInfo).port}`;
  publicUrl ||= url;
  return {
    url,
    publicUrl,
    close: () =>
      new Promise<void>((resolve) => {
        running = undefined;
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
