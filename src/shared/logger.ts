import { pino, type Logger } from 'pino';

export type { Logger };

/** One pino logger per process; requests get a child with their requestId. Never log secrets. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: ['req.headers.authorization', 'password', '*.password', 'access_token', '*.access_token'],
      remove: true,
    },
  });
}
