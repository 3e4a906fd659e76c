// npm run sandbox: the external services' sandbox on its own, for several server processes to share
// (each started with SANDBOX_URL set to the address printed here). Port from SANDBOX_PORT (0: any free one).
import { loadConfig } from '../../config.ts';
import { sandbox } from './server.ts';

const config = loadConfig();
if (config.integrations.sandboxUrl) throw new Error('SANDBOX_URL is set: that sandbox is already running elsewhere; unset it to start one here');
const running = await sandbox(config.integrations);
// the in-process sandbox does not keep its process alive; this one is the process's only work
const alive = setInterval(() => {}, 1 << 30);
console.log(`Sandbox listening on ${running.url}`);
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    clearInterval(alive);
    void running.close().then(() => process.exit(0));
  });
