import type { Server } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import type { Config } from '../config.ts';
import { RequestTimeoutError } from '../shared/errors.ts';

const TIMED_OUT = Symbol('body-timeout.timed-out');
type Timed = Request & { [TIMED_OUT]?: boolean };

/**
 * Connection hygiene. A request whose body has not been received completely `ms` after it got here
 * (after admission control, so a queued request's body waits in the kernel, not against its time;
 * at arrival when the gate is off) is answered 408 by `answer` (the app's error renderer: in the
 * path's error shape) with `Connection: close`, and Node closes the connection once the answer is
 * out. So a client whose Content-Length promises more than it sends holds its connection and its
 * admitted slot for REQUEST_BODY_TIMEOUT_MS, not until the client gives up. An answer already begun
 * is never written over: the connection is cut instead. The body parser then sees the connection
 * close and fails; `timedOut(req)` tells the error handler to let that go, with no second answer
 * and nothing logged.
 */
export function bodyTimeout(ms: number, answer: (req: Request, res: Response, error: RequestTimeoutError) => void): RequestHandler {
  return (req, res, next) => {
    if (req.complete) return next();
    const timer = setTimeout(() => {
      if (req.complete || res.writableEnded) return;
      (req as Timed)[TIMED_OUT] = true;
      if (res.headersSent) return void req.socket.destroy();
      answer(req, res, new RequestTimeoutError(`The request body was not received within ${ms} ms; the connection is closed`));
    }, ms);
    const clear = () => clearTimeout(timer);
    req.once('end', clear);
    res.once('close', clear);
    next();
  };
}

/** Whether the request was answered 408 by `bodyTimeout` (its body parser's later failure is no error to answer). */
export const timedOut = (req: Request): boolean => (req as Timed)[TIMED_OUT] === true;

/**
 * How often Node checks its header and request timeouts: its default, 30 s, let a request live up to
 * 30 s past them.
 */
const CONNECTIONS_CHECKING_INTERVAL_MS = 1000;

/** The options the HTTP server is created with (http.createServer): what only the constructor sets. */
export const serverOptions = { connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS } as const;

/**
 * Node's own timeouts, for what the app never sees: the headers must arrive within
 * REQUEST_BODY_TIMEOUT_MS of the request's first byte (a slowloris sending a header line now and
 * then is answered 408 in the path's shape, src/http/client-errors.ts), and the whole request
 * within the headers' time, the longest wait for admission and the body's time together (after
 * that Node cuts it, whatever the app does; the app's own 408 comes first).
 */
export function applyServerTimeouts(server: Server, config: Pick<Config, 'requestBodyTimeoutMs' | 'admission'>): void {
  server.headersTimeout = config.requestBodyTimeoutMs;
  server.requestTimeout = 2 * config.requestBodyTimeoutMs + config.admission.maxWaitMs + 1000;
}
