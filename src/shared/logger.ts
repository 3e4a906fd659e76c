import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * One pino logger per process; requests get a child with their requestId. Never log secrets.
 * `asyncOutput` (the server): lines go to stdout without blocking the request path (pino's
 * asynchronous destination; what is still buffered is written synchronously when the process
 * exits). Tools and tests keep synchronous output.
 * `format` (the server, LOG_FORMAT): `json`, one object per line, for log collectors; `pretty`, one
 * line a person reads (pino-pretty: time, level, `GET /graphql 200 12 ms`, the other fields after);
 * undefined: pretty when stdout is a terminal, JSON when it is a pipe or a file.
 */
export function createLogger(level: string, { asyncOutput = false, format }: { asyncOutput?: boolean; format?: 'json' | 'pretty' } = {}): Logger {
  const options = {
    level,
    redact: {
      paths: ['req.headers.authorization', 'password', '*.password', 'access_token', '*.access_token'],
      remove: true,
    },
  };
  const pretty = format === 'pretty' || (format === undefined && asyncOutput && process.stdout.isTTY === true);
  if (pretty) return pino(options, prettyStream(asyncOutput));
  return pino(options, asyncOutput ? pino.destination({ dest: 1, sync: false }) : undefined);
}

/**
 * pino-pretty as a stream in this thread (not as a transport: a transport's worker thread resolves
 * its module from pino's own files, which the bundle in dist/ does not have). Loaded only when used.
 * The request line's fields make its message; requestId and userId follow on the same line.
 */
function prettyStream(asyncOutput: boolean): DestinationStream {
  const build = createRequire(import.meta.url)('pino-pretty') as (options: Record<string, unknown>) => DestinationStream;
  return build({
    colorize: process.stdout.isTTY === true,
    sync: !asyncOutput,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,method,path,status,ms',
    singleLine: true,
    messageFormat: (log: Record<string, unknown>, messageKey: string) =>
      log.method && log.path ? `${log.method} ${log.path} ${log.status} ${log.ms} ms` : String(log[messageKey] ?? ''),
  });
}
