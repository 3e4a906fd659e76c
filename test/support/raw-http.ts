import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  /** header names lower-cased */
  headers: Record<string, string>;
  /** the body parsed as JSON (the text when it is none) */
  body: any;
  /** ms from the request's first byte to its answer's last */
  ms: number;
}

export interface RawRequest {
  socket: Socket;
  /** more bytes of the request */
  send(bytes: string): void;
  /** the answer, once all of it (by Content-Length) has arrived or the connection has closed */
  response(): Promise<RawResponse>;
  /** resolves when the server has closed the connection */
  closed: Promise<void>;
}

/**
 * One HTTP/1.1 request written by hand on a connection of its own, for what fetch cannot send: a
 * body shorter than its Content-Length, headers that never end. `start` is sent at once.
 */
export function rawRequest(url: string, start: string): RawRequest {
  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  const started = performance.now();
  let text = '';
  let ended = false;
  const waiting: (() => void)[] = [];
  const wake = () => waiting.splice(0).forEach((w) => w());
  socket.on('data', (d) => {
    text += d.toString('latin1');
    wake();
  });
  const closed = new Promise<void>((resolve) =>
    socket.on('close', () => {
      ended = true;
      wake();
      resolve();
    }),
  );
  socket.on('error', () => undefined);
  socket.write(start);

  const complete = (): RawResponse | undefined => {
    const split = text.indexOf('\r\n\r\n');
    if (split < 0) return undefined;
    const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const raw = Buffer.from(text.slice(split + 4), 'latin1');
    const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
    if (length === undefined ? !ended : raw.length < length) return undefined;
    const bodyText = raw.subarray(0, length).toString('utf8');
    let body: unknown = bodyText;
    try {
      body = JSON.parse(bodyText);
    } catch {
      /* not JSON */
    }
    return { status: Number(statusLine.split(' ')[1]), headers, body, ms: performance.now() - started };
  };

  return {
    socket,
    send: (bytes) => socket.write(bytes),
    closed,
    async response() {
      for (;;) {
        const answer = complete();
        if (answer) return answer;
        if (ended) throw new Error(`the connection closed without a complete answer: ${JSON.stringify(text.slice(0, 300))}`);
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
    },
  };
}

/** The head of a request with a body of `length` bytes, JSON unless `headers` name another Content-Type. */
export const jsonHead = (method: string, path: string, length: number, headers: Record<string, string> = {}): string =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries({ 'Content-Type': 'application/json', ...headers, 'Content-Length': String(length) })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
