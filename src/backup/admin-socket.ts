import { chmodSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { isAbsolute, join } from 'node:path';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../shared/logger.ts';
import { backupSummary, backupUnderWay, DUMP_FORMATS, writeBackup, type DumpFormat } from './backup.ts';

/**
 * The embedded database's control channel (src/backup/README.md, "Backing up a running embedded
 * server"): a server that holds DATA_DIR's embedded database listens on the Unix socket
 * DATA_DIR/admin.sock, which only the machine's user that runs it can open (mode 0600, created so),
 * and answers one request per connection: one line of JSON, `{"command":"backup","out":"/abs/path"}`
 * (optionally `"format":"logical"`), answered by one line of JSON once the backup is written:
 * `{"ok":true,"pid":…,"result":{…}}` (what the CLI prints of a backup) or `{"ok":false,"error":"…"}`.
 * One backup at a time: a request while one is being written is refused at once (`"busy":true`). A
 * failure is an answer, never the server's end.
 */

export const adminSocketPath = (config: Pick<Config, 'dataDir'>): string => join(config.dataDir, 'admin.sock');

/** A Unix socket's path is limited to 107 bytes on Linux (sun_path). */
const MAX_SOCKET_PATH = 107;
/** A request is one short line: more is not one. */
const MAX_REQUEST_BYTES = 16 << 10;
/** How long a connection may take to send its request. */
const REQUEST_TIMEOUT_MS = 10_000;

export interface AdminRequest {
  command: 'backup';
  /** an absolute path, written by the server's process (the same user: only it can open the socket) */
  out: string;
  format?: DumpFormat;
}

export type AdminReply = { ok: true; pid: number; result: Record<string, unknown> } | { ok: false; error: string; busy?: boolean };

/** The request's fields, or the message saying what is wrong with it. */
function parseRequest(line: string): AdminRequest | string {
  let r: Partial<AdminRequest>;
  try {
    r = JSON.parse(line) as Partial<AdminRequest>;
  } catch {
    return 'the request is not JSON';
  }
  if (r === null || typeof r !== 'object') return 'the request is not a JSON object';
  if (r.command !== 'backup') return `unknown command ${JSON.stringify(r.command)} (commands: backup)`;
  if (typeof r.out !== 'string' || !isAbsolute(r.out)) return '"out" must be an absolute path';
  // Node 20's recursive mkdir never returns under /proc: it would hold the server's thread for good
  if (/^\/(proc|sys)(\/|$)/.test(r.out)) return '"out" must not be under /proc or /sys';
  if (r.format !== undefined && !DUMP_FORMATS.includes(r.format)) return `"format" must be one of ${DUMP_FORMATS.join(', ')}`;
  return { command: r.command, out: r.out, format: r.format };
}

export interface AdminSocket {
  path: string;
  close(): Promise<void>;
}

/**
 * Listens on DATA_DIR/admin.sock for the server that holds the embedded database `db`. A socket file
 * left there is stale (its process died: this one holds DATA_DIR's lock) and is replaced. Undefined,
 * with a warning, when the path is too long for a socket.
 */
export async function startAdminSocket({ config, db, logger }: { config: Config; db: Database; logger: Logger }): Promise<AdminSocket | undefined> {
  const path = adminSocketPath(config);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    logger.warn({ path }, `DATA_DIR is too long a path for the admin socket (at most ${MAX_SOCKET_PATH} bytes): npm run admin -- backup cannot ask this server`);
    return undefined;
  }
  rmSync(path, { force: true });
  const server = createServer((conn) => serve(conn));
  // created 0600 (bound under umask 177: no moment where another user could connect), checked again after
  const umask = process.umask(0o177);
  try {
    server.listen(path);
  } finally {
    process.umask(umask);
  }
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  chmodSync(path, 0o600);

  function serve(conn: Socket): void {
    let buffered = '';
    let answered = false;
    const reply = (r: AdminReply) => {
      if (answered) return;
      answered = true;
      conn.end(`${JSON.stringify(r)}\n`);
    };
    conn.setEncoding('utf8');
    conn.setTimeout(REQUEST_TIMEOUT_MS, () => reply({ ok: false, error: `no request within ${REQUEST_TIMEOUT_MS / 1000} s` }));
    conn.on('error', () => undefined); // a client that went away: nothing to answer
    conn.on('data', (chunk: string) => {
      if (answered) return;
      buffered += chunk;
      const end = buffered.indexOf('\n');
      if (end === -1) {
        if (buffered.length > MAX_REQUEST_BYTES) reply({ ok: false, error: 'the request is too long' });
        return;
      }
      conn.setTimeout(0); // the backup takes as long as it takes
      void answer(buffered.slice(0, end)).then(reply);
    });
  }

  async function answer(line: string): Promise<AdminReply> {
    const request = parseRequest(line);
    if (typeof request === 'string') return { ok: false, error: request };
    const busy = backupUnderWay();
    if (busy) return { ok: false, busy: true, error: `a backup is already being written (to ${busy.out}, since ${busy.since.toISOString()}): one at a time; try again when it has finished` };
    try {
      const result = await writeBackup(config, request.out, db, { format: request.format });
      logger.info({ file: result.file, bytes: result.bytes, ms: result.ms }, 'backup written (admin socket)');
      return { ok: true, pid: process.pid, result: backupSummary(result) };
    } catch (e) {
      logger.warn({ err: e, out: request.out }, 'backup failed (admin socket)');
      return { ok: false, error: e instanceof Error ? e.message : String(e) };
    }
  }

  logger.debug({ path }, 'admin socket listening');
  return {
    path,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        rmSync(path, { force: true });
      }),
  };
}

/**
 * Sends `request` to the server listening on `path` and waits for its answer (a backup takes as long
 * as it takes). Undefined when nothing listens there (no socket, or a stale one).
 */
export function askServer(path: string, request: AdminRequest): Promise<AdminReply | undefined> {
  return new Promise((resolve, reject) => {
    const conn = createConnection(path);
    let data = '';
    let connected = false;
    conn.setEncoding('utf8');
    conn.on('connect', () => {
      connected = true;
      conn.write(`${JSON.stringify(request)}\n`);
    });
    conn.on('data', (chunk: string) => (data += chunk));
    conn.on('error', (e: NodeJS.ErrnoException) => {
      if (!connected && (e.code === 'ENOENT' || e.code === 'ECONNREFUSED')) resolve(undefined);
      else reject(new Error(`the server's admin socket ${path}: ${e.message}`));
    });
    conn.on('end', () => {
      try {
        resolve(JSON.parse(data) as AdminReply);
      } catch {
        reject(new Error(`the server's admin socket ${path} closed without an answer`));
      }
    });
  });
}
