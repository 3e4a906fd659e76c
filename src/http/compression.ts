import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Request, RequestHandler, Response } from 'express';
import compression from 'compression';

/**
 * Compressed responses (br or gzip, as the client's Accept-Encoding prefers; `Vary: Accept-Encoding`)
 * for what compresses: HTML, JavaScript, CSS, JSON, XML, text, of at least COMPRESSION_THRESHOLD
 * bytes. Mounted before every route, so the bytes a handler writes (and the idempotency capture sees)
 * are the plain ones and only the wire is compressed; a replayed answer is compressed like the first.
 *
 * Left alone:
 *   - `text/event-stream`: each event must reach the client when written, not when a compressor's
 *     buffer fills (MCP answers JSON, yoga would stream subscriptions this way)
 *   - anything already encoded (the GraphiQL page, compressed once: `precompressed`) and types that
 *     do not compress (PDF, images, ZIP and office files: the `compressible` list)
 *   - `Cache-Control: no-transform` and HEAD requests (the package's own rules)
 * Brotli at quality 4 (the package's default): about gzip's speed, 15 % smaller.
 */
export const COMPRESSION_THRESHOLD = 1024;

export function compressResponses(): RequestHandler {
  return compression({
    threshold: COMPRESSION_THRESHOLD,
    filter: (req: Request, res: Response) => {
      if (String(res.getHeader('Content-Type') ?? '').startsWith('text/event-stream')) return false;
      return compression.filter(req, res);
    },
  });
}

type Encoding = 'br' | 'gzip' | 'identity';

/**
 * A large fixed page (the GraphiQL page: 9 MB) compressed once per encoding, on the first request
 * that asks for it, off the event loop (zlib's thread pool): brotli at quality 4 takes about 0.5 s
 * for it (2.1 MB), gzip about 1 s (2.4 MB); compressing it per view would cost that every time.
 * (Brotli's quality 9 saves another 10 % for 5 s: not worth a first view's wait.)
 */
export function precompressed(text: string): (encoding: Encoding) => Promise<Buffer> {
  const identity = Buffer.from(text, 'utf8');
  const cache = new Map<Encoding, Promise<Buffer>>([['identity', Promise.resolve(identity)]]);
  const make = (encoding: Encoding): Promise<Buffer> =>
    encoding === 'br'
      ? promisify(brotliCompress)(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length } })
      : promisify(gzip)(identity);
  return (encoding) => {
    let bytes = cache.get(encoding);
    if (!bytes) {
      bytes = make(encoding);
      cache.set(encoding, bytes);
      bytes.catch(() => cache.delete(encoding)); // the next request tries again
    }
    return bytes;
  };
}

/** Sends a precompressed body in the encoding the request prefers (br, then gzip, then none). */
export async function sendPrecompressed(req: Request, res: Response, body: (encoding: Encoding) => Promise<Buffer>): Promise<void> {
  // br whenever accepted (as the compression middleware prefers it), whatever the order the client lists them in
  const encoding: Encoding = req.acceptsEncodings('br') ? 'br' : req.acceptsEncodings('gzip') ? 'gzip' : 'identity';
  const bytes = await body(encoding);
  res.vary('Accept-Encoding');
  if (encoding !== 'identity') res.setHeader('Content-Encoding', encoding);
  res.setHeader('Content-Length', String(bytes.length));
  if (req.method === 'HEAD') return void res.end();
  res.end(bytes);
}
