import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { getOperationAST, OperationTypeNode, parse } from 'graphql';
import type { Prisma } from '../db/database.ts';
import { methodNeedsWrite } from './authentication.ts';
import type { RequestContext } from '../shared/context.ts';
import { ConflictError, UnprocessableError, ValidationError } from '../shared/errors.ts';
import { persistedHashOf } from '../shared/persisted-operations.ts';

/**
 * Idempotency keys on writes (Stripe's idempotent requests; the IETF httpapi Idempotency-Key draft).
 *
 * A write that carries `Idempotency-Key` claims the key for its user in idempotency_keys with one
 * atomic statement, runs, and stores its answer (status, content type, body bytes) for 24 hours. A
 * repeat with the same method, path and body gets the stored answer again, with
 * `Idempotent-Replayed: true`; the same key with another request is a 422; a repeat while the first
 * still runs is a 409. Every process on the same database shares the keys, and every decision uses
 * the database clock.
 *
 * What is stored: every answer below 500 except 401, 403 and 429, whose cause lies outside the
 * request (token, permission, rate) and may be fixed before a retry. A 5xx, or a process that dies
 * mid-request, leaves the key free for a retry: a 5xx releases the claim at once; a crash leaves a
 * running row whose lock (renewed while the request lives) lapses after `lockMs`, and the next retry
 * with the same request takes it over.
 */

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
export const IDEMPOTENCY_LOCK_MS = 30_000;

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

const VALID_KEY = /^[\x20-\x7e]{1,255}$/;
/** Refusals whose cause lies outside the request: never stored, so a retry can succeed once fixed. */
const REFUSALS = new Set([401, 403, 429]);

/** POST, PUT, PATCH and DELETE: the REST writes (those that need the write scope). */
export const isWriteMethod = (req: Request): boolean => methodNeedsWrite(req.method);

const RAW_BODY = Symbol('idempotency.rawBody');
type WithRawBody = IncomingMessage & { [RAW_BODY]?: Buffer };

/** The `verify` hook of express.json/express.raw that keeps the body bytes the fingerprint covers. */
export function keepRawBody(req: IncomingMessage, _res: unknown, buf: Buffer): void {
  (req as WithRawBody)[RAW_BODY] = buf;
}

/**
 * For /graphql, where yoga reads the body itself. Buffers (into req.body, which yoga reads instead of
 * the stream) the body of a POST that carries an Idempotency-Key, so the predicate can see the
 * operation and the fingerprint the bytes; and every body that is not multipart and either has no
 * Content-Length (chunked) or declares more than `limit`, so that /graphql has the same 1 MB body limit
 * as /api/v2 and /mcp (413, refused from the header without reading the body). A body within the limit
 * by its Content-Length is left to yoga. Compressed bodies that are buffered are refused (415): yoga
 * would be handed the inflated bytes with the original Content-Encoding.
 */
export function bufferGraphqlBody(limit = 1_048_576): RequestHandler {
  return express.raw({
    type: (req) => {
      if (req.headers['idempotency-key'] !== undefined) return true;
      if (String(req.headers['content-type'] ?? '').startsWith('multipart/')) return false;
      const length = req.headers['content-length'];
      return length === undefined ? req.headers['transfer-encoding'] !== undefined : Number(length) > limit;
    },
    limit,
    inflate: false,
    verify: keepRawBody,
  });
}

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/** A GraphQL request's query and operation name from the kept body, as yoga's POST parsers read them. */
function graphqlParams(req: Request): { query?: unknown; operationName?: unknown; extensions?: unknown } | undefined {
  const raw = (req as unknown as WithRawBody)[RAW_BODY];
  if (!raw) return undefined;
  const type = (req.get('content-type') ?? '').split(/[,;]/)[0].trim().toLowerCase();
  if (type === 'application/graphql') return { query: raw.toString('utf8') };
  if (type === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams(raw.toString('utf8'));
    return { query: form.get('query'), operationName: form.get('operationName') };
  }
  try {
    const body: unknown = JSON.parse(raw.toString('utf8'));
    return body && typeof body === 'object' && !Array.isArray(body) ? body : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A POST to /graphql whose selected operation is a mutation. Multipart requests (the GraphQL
 * multipart request spec, for uploads) count as mutations without being parsed. A body that does not
 * parse, or names no operation yoga would run, is no write: yoga answers it without executing.
 * A body with a persisted operation's hash instead of the document (`extensions.persistedQuery`)
 * is judged by the document `documentOf` finds for the hash (src/shared/persisted-operations.ts);
 * an unknown hash is no write (yoga answers PersistedQueryNotFound without executing).
 */
export function isGraphqlMutation(req: Request, documentOf?: (hash: string) => string | undefined): boolean {
  if (req.method !== 'POST') return false;
  if (req.is('multipart/form-data')) return true;
  const params = graphqlParams(req);
  const hash = persistedHashOf(params?.extensions);
  const query = typeof params?.query === 'string' ? params.query : hash !== undefined ? documentOf?.(hash) : undefined;
  if (query === undefined) return false;
  try {
    const name = typeof params?.operationName === 'string' && params.operationName ? params.operationName : undefined;
    return getOperationAST(parse(query), name)?.operation === OperationTypeNode.MUTATION;
  } catch {
    return false;
  }
}

/** SHA-256 of the method, the path with its query string and the body bytes. */
function fingerprintOf(req: Request): string {
  const raw = (req as unknown as WithRawBody)[RAW_BODY];
  return createHash('sha256')
    .update(`${req.method} ${req.originalUrl}\n`)
    .update(raw ?? Buffer.alloc(0))
    .digest('hex');
}

interface KeyRow {
  fingerprint: string;
  response_status: number | null;
  response_content_type: string | null;
  response_body: Uint8Array | null;
  locked: boolean;
}

/** The rows of one user's key; every statement decides on the database clock. */
class IdempotencyKeys {
  constructor(
    private readonly prisma: Prisma,
    private readonly userId: number,
    private readonly key: string,
    private readonly ttlMs: number,
    private readonly lockMs: number,
  ) {}

  /**
   * One atomic statement: insert the key, or take over a row that has expired, or a running row of
   * the same request whose lock has lapsed (its process died). True when this request holds it now.
   */
  async claim(fingerprint: string, token: string): Promise<boolean> {
    const rows = await this.prisma.$queryRaw<unknown[]>`
      INSERT INTO idempotency_keys AS k (user_id, key, fingerprint, lock_token, locked_until, expires_at)
      VALUES (${this.userId}, ${this.key}, ${fingerprint}, ${token}::uuid,
              now() + ${this.lockMs}::double precision * interval '1 millisecond',
              now() + ${this.ttlMs}::double precision * interval '1 millisecond')
      ON CONFLICT (user_id, key) DO UPDATE SET
        fingerprint = EXCLUDED.fingerprint, lock_token = EXCLUDED.lock_token, locked_until = EXCLUDED.locked_until,
        expires_at = EXCLUDED.expires_at, created_at = now(),
        response_status = NULL, response_content_type = NULL, response_body = NULL
      WHERE k.expires_at <= now()
         OR (k.response_status IS NULL AND k.locked_until <= now() AND k.fingerprint = EXCLUDED.fingerprint)
      RETURNING 1`;
    return rows.length === 1;
  }

  async find(): Promise<KeyRow | undefined> {
    const [row] = await this.prisma.$queryRaw<KeyRow[]>`
      SELECT fingerprint, response_status, response_content_type, response_body, locked_until > now() AS locked
      FROM idempotency_keys WHERE user_id = ${this.userId} AND key = ${this.key} AND expires_at > now()`;
    return row;
  }

  /** Keeps the lock of a request that still runs. */
  async renew(token: string): Promise<void> {
    await this.prisma.$executeRaw`
      UPDATE idempotency_keys SET locked_until = now() + ${this.lockMs}::double precision * interval '1 millisecond'
      WHERE user_id = ${this.userId} AND key = ${this.key} AND lock_token = ${token}::uuid`;
  }

  /** Stores the answer; the key then lives ttlMs from now. False when the claim was lost meanwhile. */
  async store(token: string, status: number, contentType: string | null, body: Buffer): Promise<boolean> {
    const n = await this.prisma.$executeRaw`
      UPDATE idempotency_keys SET response_status = ${status}, response_content_type = ${contentType}, response_body = ${body},
        lock_token = NULL, locked_until = NULL, expires_at = now() + ${this.ttlMs}::double precision * interval '1 millisecond'
      WHERE user_id = ${this.userId} AND key = ${this.key} AND lock_token = ${token}::uuid`;
    return n === 1;
  }

  /** Frees the key for a retry. */
  async release(token: string): Promise<void> {
    await this.prisma.$executeRaw`
      DELETE FROM idempotency_keys WHERE user_id = ${this.userId} AND key = ${this.key} AND lock_token = ${token}::uuid`;
  }
}

/** Deletes keys whose 24 hours have passed (the periodic cleanup job); returns how many. */
export async function pruneIdempotencyKeys(prisma: Prisma): Promise<number> {
  return prisma.$executeRaw`DELETE FROM idempotency_keys WHERE expires_at <= now()`;
}

type ChunkArgs = [chunk?: unknown, encoding?: unknown, callback?: unknown];

/**
 * Copies every byte the handler writes (res.write, res.end; res.json and res.send end in res.end) and
 * hands them to `settle` before any of them goes out, so a client that has its answer finds it
 * stored or released. The writes are held back until then, not only the end: graphql-yoga writes
 * its whole body with res.write and ends with an empty res.end, and a client that knows the length
 * has the answer at the write (a retry then raced the release and got 409). The bytes themselves
 * pass through unchanged, in order, with their callbacks.
 */
function captureResponse(res: Response, settle: (body: Buffer) => Promise<void>): void {
  const chunks: Buffer[] = [];
  const held: ChunkArgs[] = [];
  const keep = (chunk: unknown, encoding: unknown) => {
    if (typeof chunk === 'string') chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  const write = res.write;
  const end = res.end;
  res.write = function (this: Response, ...args: ChunkArgs) {
    keep(args[0], args[1]);
    held.push(args);
    return true; // held in memory until the end: nothing for the writer to wait for
  } as Response['write'];
  res.end = function (this: Response, ...args: ChunkArgs) {
    keep(args[0], args[1]);
    res.write = write;
    res.end = end;
    void settle(Buffer.concat(chunks)).finally(() => {
      for (const w of held) (write as (...a: ChunkArgs) => boolean).apply(this, w);
      (end as (...a: ChunkArgs) => Response).apply(this, args);
    });
    return this;
  } as Response['end'];
}

function replay(res: Response, row: KeyRow): void {
  res.status(row.response_status!);
  if (row.response_content_type) res.setHeader('Content-Type', row.response_content_type);
  res.setHeader(REPLAYED_HEADER, 'true');
  res.send(Buffer.from(row.response_body ?? new Uint8Array()));
}

export interface IdempotencyOptions {
  prisma: Prisma;
  /** the requests the key applies to (REST: isWriteMethod; /graphql: isGraphqlMutation); others ignore it */
  isWrite(req: Request): boolean;
  /** how long an answer is kept; 24 hours */
  ttlMs?: number;
  /** how long a running request's lock lasts unless renewed (it is renewed every third of it) */
  lockMs?: number;
}

/**
 * Express middleware for an entry point's writes; mount it after the bearer middleware (it keys by
 * req.ctx.actor.userId) and after the body is read with keepRawBody (express.json's verify, or
 * bufferGraphqlBody). Errors go to next(err) as AppErrors: 400 for a malformed key, 422 for a key
 * used with another request, 409 while the first request runs.
 */
export function idempotency(options: IdempotencyOptions): RequestHandler {
  const ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
  const lockMs = options.lockMs ?? IDEMPOTENCY_LOCK_MS;
  return async (req: Request, res: Response, next: NextFunction) => {
    const key = req.get(IDEMPOTENCY_KEY_HEADER);
    const ctx = (req as Request & { ctx?: RequestContext }).ctx;
    // keys belong to users: a caller without a token (a public mutation on /graphql) runs as usual
    if (key === undefined || !ctx || ctx.actor.tokenKind === 'anonymous' || !options.isWrite(req)) return next();
    if (!VALID_KEY.test(key)) {
      return next(ValidationError.field(IDEMPOTENCY_KEY_HEADER, 'must be 1 to 255 printable ASCII characters'));
    }
    if (hasBody(req) && (req as unknown as WithRawBody)[RAW_BODY] === undefined) {
      return next(ValidationError.field(IDEMPOTENCY_KEY_HEADER, `is not supported with a ${req.get('content-type') ?? 'body of this kind'} body`));
    }
    const log = ctx.logger;
    const keys = new IdempotencyKeys(options.prisma, ctx.actor.userId, key, ttlMs, lockMs);
    const fingerprint = fingerprintOf(req);
    const token = randomUUID();
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        if (await keys.claim(fingerprint, token)) return run();
        const row = await keys.find();
        if (!row) continue; // expired or deleted since the claim: claim again
        if (row.fingerprint !== fingerprint) {
          throw new UnprocessableError(
            `${IDEMPOTENCY_KEY_HEADER} was already used with another request (method, path or body differ); use a new key for a new request`,
            'common.idempotency_key_reused',
          );
        }
        if (row.response_status !== null) return replay(res, row);
        if (row.locked) break;
        // the lock lapsed since the claim: claim again
      }
      res.setHeader('Retry-After', '1');
      throw new ConflictError(`A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed; retry later`);
    } catch (err) {
      return next(err);
    }

    function run(): void {
      const renewal = setInterval(() => {
        keys.renew(token).catch((err: unknown) => log.warn({ err }, 'could not renew an idempotency lock'));
      }, lockMs / 3);
      renewal.unref();
      res.once('close', () => clearInterval(renewal)); // answered, or the client went away
      captureResponse(res, async (body) => {
        clearInterval(renewal);
        const status = res.statusCode;
        try {
          if (status >= 500 || REFUSALS.has(status)) return await keys.release(token);
          const contentType = res.getHeader('content-type');
          if (!(await keys.store(token, status, contentType === undefined ? null : String(contentType), body))) {
            log.warn('idempotency lock lost before the answer was stored');
          }
        } catch (err) {
          log.error({ err }, 'could not store the answer of an idempotent request');
        }
      });
      next();
    }
  };
}
