import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * One pino logger per process; requests get a child with their requestId. Never log secrets.
 * `asyncOutput` (the server): lines go to stdout without blocking the request path (pino's
 * asynchronous destination; what is still buffered is written synchronously when the process
 * exits). Tools and tests keep synchronous output.
 */
export function createLogger(level: string, { asyncOutput = false }: { asyncOutput?: boolean } = {}): Logger {
  return pino(
    {
      level,
      redact: {
        paths: ['req.headers.authorization', 'password', '*.password', 'access_token', '*.access_token'],
        remove: true,
      },
    },
    asyncOutput ? pino.destination({ dest: 1, sync: false }) : undefined,
  );
}
