import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminSocketPath, askServer } from '../../src/backup/admin-socket.ts';
import { tempDirs } from './backup-support.ts';
import { baseEnv, cli, json, SLOW } from '../support/cli.ts';
import { targets } from '../support/harness.ts';
import { startServerProcess, stopProcess, type ServerProcess } from '../support/server-process.ts';

// Issue 34: "npm run admin -- backup --out FILE writes a consistent snapshot of everything the
// service stores … while the server keeps serving". The embedded database belongs to the server
// that holds it, so the CLI asks that server, through DATA_DIR/admin.sock, to write the backup
// (src/backup/admin-socket.ts); on PostgreSQL the CLI backs up by itself.

const tmp = tempDirs();

describe.skipIf(!targets().includes('pglite'))('backing up a running embedded server through its admin socket', () => {
  const dataDir = tmp('regnskap-socket-src-');
  const outDir = tmp('regnskap-socket-out-');
  const socket = adminSocketPath({ dataDir });
  let server: ServerProcess;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // a socket file left behind by a server that died: the next server replaces it
    writeFileSync(socket, 'stale');
    env = { ...baseEnv(), DATA_DIR: dataDir, DATABASE_URL: '' };
    server = await startServerProcess({ DATA_DIR: dataDir, DATABASE_URL: '', SEED_DEMO: 'true' });
  }, SLOW);
  afterAll(async () => {
    await stopProcess(server?.child);
  });

  it('"only the machine\'s owner": the socket is DATA_DIR/admin.sock, a socket of mode 0600 (the stale file replaced)', () => {
    const st = statSync(socket);
    expect(st.isSocket()).toBe(true);
    expect(st.mode & 0o777).toBe(0o600);
  });

  it('"while the server keeps serving": the CLI asks the running server, says so, and the server answers requests meanwhile; the backup restores and verifies', async () => {
    const out = join(outDir, 'through-server.zip');
    const backup = cli(['backup', '--out', out], env);
    // requests during the backup
    const answered: number[] = [];
    let done = false;
    void backup.then(() => (done = true));
    while (!done) {
      answered.push((await fetch(`${server.base}/health`)).status);
      await new Promise((r) => setTimeout(r, 50));
    }
    const result = json(await backup);
    expect(result).toMatchObject({ file: out, database: 'pglite', format: 'datadir', ledgers: 1, written_by: { server_pid: server.child.pid, admin_socket: socket } });
    expect(answered.length).toBeGreaterThan(0);
    expect(answered.every((s) => s === 200)).toBe(true);

    const restoreDir = tmp('regnskap-socket-dst-');
    const restored = json(await cli(['restore', '--from', out], { ...env, DATA_DIR: restoreDir }));
    expect(restored).toMatchObject({ ok: true, problems: [], accounts_verified: 1 });
    expect((await fetch(`${server.base}/health/ready`)).status).toBe(200);
  }, SLOW);

  it('--format logical through the server: a logical export of the embedded database, which verify-backup loads and checks', async () => {
    const out = join(outDir, 'logical-through-server.zip');
    const result = json(await cli(['backup', '--out', out, '--format', 'logical'], env));
    expect(result).toMatchObject({ format: 'logical', written_by: { server_pid: server.child.pid } });
    const v = json(await cli(['verify-backup', '--from', out], env));
    expect(v).toMatchObject({ ok: true, format: 'logical', accounts_verified: 1 });
  }, SLOW);

  it('"several requests at once must not run two backups concurrently": the second is refused with a clear message while the first is written', async () => {
    const [a, b] = await Promise.all([
      askServer(socket, { command: 'backup', out: join(outDir, 'a.zip') }),
      askServer(socket, { command: 'backup', out: join(outDir, 'b.zip') }),
    ]);
    const replies = [a!, b!];
    expect(replies.filter((r) => r.ok)).toHaveLength(1);
    const refused = replies.find((r) => !r.ok)!;
    expect(refused).toMatchObject({ ok: false, busy: true });
    expect(!refused.ok && refused.error).toMatch(/a backup is already being written \(to .*\.zip, since .*\): one at a time/);
    expect(existsSync(join(outDir, 'a.zip')) !== existsSync(join(outDir, 'b.zip'))).toBe(true);
  }, SLOW);

  it('"a failure replies with the error message, never crashes the server": a bad request, an unwritable file', async () => {
    expect(await askServer(socket, { command: 'backup', out: 'relative.zip' })).toEqual({ ok: false, error: '"out" must be an absolute path' });
    expect(await askServer(socket, { command: 'restore' } as never)).toMatchObject({ ok: false, error: expect.stringMatching(/unknown command "restore"/) });
    // a directory that cannot be made: a regular file stands where it would be (/proc would do too, but Node 20's recursive mkdir loops there)
    const blocker = join(outDir, 'a-file');
    writeFileSync(blocker, 'not a directory');
    const failed = await cli(['backup', '--out', join(blocker, 'backup.zip')], env);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/The running server that holds the embedded database .* did not write the backup: (EEXIST|ENOTDIR).*a-file/);
    expect((await fetch(`${server.base}/health`)).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  }, SLOW);

  it('the socket is removed when the server shuts down; the CLI then backs up by itself', async () => {
    expect(await stopProcess(server.child)).toBe(0);
    expect(existsSync(socket)).toBe(false);
    const result = json(await cli(['backup', '--out', join(outDir, 'stopped.zip')], env));
    expect(result.written_by).toBeUndefined();
    expect(result).toMatchObject({ database: 'pglite', format: 'datadir' });
  }, SLOW);
});
