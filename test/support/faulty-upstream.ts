import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A misbehaving external service for the connector failure tests: point an app's <SERVICE>_URL at
 * `url` (with a short INTEGRATION_TIMEOUT_MS) and set `mode` to how every request is answered:
 * `500` an error status with a JSON message, `denied` 401, `not-json` an HTML page, `bad-shape` JSON
 * of no promised shape, `hang` never an answer, `ok` the JSON in `okBody`. A path-prefix entry in
 * `byPath` overrides the mode for that path. `seen` records each request.
 */
export type FaultMode = '500' | 'denied' | 'not-json' | 'bad-shape' | 'hang' | 'ok';

export interface FaultyUpstream {
  url: string;
  mode: FaultMode;
  okBody: unknown;
  byPath: Record<string, FaultMode>;
  seen: { method: string; url: string; authorization?: string; body: string }[];
  close(): Promise<void>;
}

export async function startFaultyUpstream(mode: FaultMode = '500'): Promise<FaultyUpstream> {
  const upstream: Omit<FaultyUpstream, 'url' | 'close'> = { mode, okBody: {}, byPath: {}, seen: [] };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      upstream.seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body });
      const prefix = Object.keys(upstream.byPath).find((p) => req.url?.startsWith(p));
      const answer = prefix ? upstream.byPath[prefix]! : upstream.mode;
      const json = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      switch (answer) {
        case '500':
          return json(500, { message: 'upstream exploded' });
        case 'denied':
          return json(401, { error: 'invalid_token' });
        case 'not-json':
          return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
        case 'bad-shape':
          return json(200, { unexpected: [true] });
        case 'hang':
          return; // never answers
        case 'ok':
          return json(200, upstream.okBody);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return Object.assign(upstream, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  }) as FaultyUpstream;
}
