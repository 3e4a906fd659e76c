import type { IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { AppError, NoSuchEndpointError, ValidationError } from '../shared/errors.ts';

/**
 * Input no entry point may pass on, refused at the edge with a 400 naming the field, once for every
 * body parser, query string and GraphQL request:
 * - the NUL character: PostgreSQL refuses U+0000 in text and jsonb, so it would surface as a 500;
 * - a lone surrogate (\ud800 without its pair): JSON may escape one, but it is no character; a text
 *   column would store U+FFFD instead and PostgreSQL refuses it in jsonb, a 500 too;
 * - JSON nested deeper than MAX_DEPTH levels: nothing in the API nests that deep, and recursive code
 *   further on must never meet a stack overflow.
 */
export const MAX_DEPTH = 32;

const NUL = '\u0000';
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const NO_NUL = 'must not contain the NUL character (U+0000)';
const NO_LONE_SURROGATE = 'must be valid Unicode: a lone surrogate (U+D800 to U+DFFF without its pair) is no character';

/** What is wrong with a string the database cannot take as it is, if anything. */
const badText = (s: string): string | null => (s.includes(NUL) ? NO_NUL : LONE_SURROGATE.test(s) ? NO_LONE_SURROGATE : null);

/** A name as it can be shown: the NUL and lone surrogates written as their escapes. */
const printable = (s: string) => s.replaceAll(NUL, '\\u0000').replace(new RegExp(LONE_SURROGATE.source, 'g'), (c) => `\\u${c.charCodeAt(0).toString(16)}`);

/** A short, bounded rendering of where a problem is (never the whole input). */
const shown = (path: (string | number)[]) =>
  path
    .slice(0, 8)
    .map((p) => printable(String(p)).slice(0, 40))
    .join('.') || 'body';

/** The first NUL, lone surrogate or too-deep nesting in a parsed value, by path; iterative, so any input is safe to walk. */
export function findUnsafe(value: unknown): { path: (string | number)[]; message: string } | null {
  const stack: { v: unknown; path: (string | number)[] }[] = [{ v: value, path: [] }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'string') {
      const bad = badText(v);
      if (bad) return { path, message: bad };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (path.length >= MAX_DEPTH) return { path: path.slice(0, 3), message: `nests deeper than ${MAX_DEPTH} levels` };
    if (Array.isArray(v)) v.forEach((x, i) => stack.push({ v: x, path: [...path, i] }));
    else
      for (const [k, x] of Object.entries(v)) {
        const bad = badText(k);
        if (bad) return { path: [...path, k], message: `${bad} in its name` };
        stack.push({ v: x, path: [...path, k] });
      }
  }
  return null;
}

/** Throws a ValidationError (400) naming the field when the value holds unsafe input. */
export function guardInput(value: unknown, prefix: (string | number)[] = []): void {
  const problem = findUnsafe(value);
  if (problem) {
    const path = [...prefix, ...problem.path].map((p) => printable(String(p)));
    throw new ValidationError(`${shown(path)}: ${problem.message}`, [{ path, message: problem.message }]);
  }
}

/**
 * A GraphQL document, before it is parsed: its string literals may write the NUL as an escape, which
 * the parser turns into one. (How deep it may nest before the recursive parser sees it is a query
 * limit: src/shared/query-limits.ts, counted before parsing on /graphql and in the MCP tools.)
 */
export function guardDocument(query: unknown): void {
  if (typeof query !== 'string') return;
  if (/\\u0000|\\u\{0+\}/i.test(query)) throw ValidationError.field('query', 'must not contain the NUL character (U+0000), escaped or not');
}

/** JSON nesting depth of raw JSON text, counted outside strings. */
function jsonDepth(buf: Buffer): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) max = Math.max(max, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

type Verify = (req: IncomingMessage, res: Response, buf: Buffer, encoding: string) => void;

/**
 * body-parser `verify` hooks: they see the raw bytes before parsing, so the depth is bounded before
 * JSON.parse builds anything, and a NUL is named by its field. An AppError thrown here keeps its 400.
 */
const verifyJson: Verify = (_req, _res, buf) => {
  if (jsonDepth(buf) > MAX_DEPTH) throw new ValidationError(`body: nests deeper than ${MAX_DEPTH} levels`);
  // JSON writes a NUL only as the escape \u0000 (lowercase u; a raw NUL is no JSON at all), and a lone
  // surrogate only as an escape \udXXX (raw bytes of one are no UTF-8 and decode to U+FFFD)
  if (buf.includes('\\u0000') || buf.includes('\\ud') || buf.includes('\\uD')) {
    try {
      guardInput(JSON.parse(buf.toString('utf8')));
    } catch (e) {
      if (e instanceof ValidationError) throw e;
      // not JSON: the parser answers that
    }
  }
};

const verifyForm: Verify = (_req, _res, buf) => {
  const text = buf.toString('latin1');
  if (!/%00/.test(text)) return;
  for (const [k, v] of new URLSearchParams(text)) {
    if (k.includes(NUL) || v.includes(NUL)) throw ValidationError.field(k.replaceAll(NUL, '\\u0000').slice(0, 40), 'must not contain the NUL character (U+0000)');
  }
};

const chain =
  (...hooks: (Verify | undefined)[]): Verify =>
  (req, res, buf, encoding) => {
    for (const h of hooks) h?.(req, res, buf, encoding);
  };

/**
 * The JSON body parser every entry point uses (the guard runs on the raw bytes; `verify` adds more).
 * `strict: false` takes any JSON value, not only objects and arrays (/mcp answers `1` as a JSON-RPC
 * Invalid Request, not as a parse error).
 */
export function jsonBody(options: { limit: string; type?: (req: IncomingMessage) => boolean; verify?: Verify; strict?: boolean }): RequestHandler {
  return express.json({ limit: options.limit, ...(options.type ? { type: options.type } : {}), ...(options.strict === false ? { strict: false } : {}), verify: chain(verifyJson, options.verify) });
}

/** The form body parser every entry point uses. */
export function formBody(options: { limit: string }): RequestHandler {
  return express.urlencoded({ extended: false, limit: options.limit, verify: verifyForm });
}

/** The control characters (C0 and DEL): no path of this service has one, and the NUL reaches PostgreSQL as a 500. */
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * The path of every request, before any route: percent-encoding that decodes to no UTF-8 text (`%`,
 * `%ZZ`, `%C0%80`, a lone surrogate `%ED%A0%80`) or to a control character (`%00`, `%0A`, `%7F`)
 * is a 400 in the path's error shape (src/http/error-renderer.ts). No path of this service
 * contains either, and a path parameter holding a NUL was a 500 where it reached the database
 * (`DELETE /v2/oauth/clients/%00`): one check here covers every entry point, today's and future
 * ones. The message never repeats the path. (A raw control character never gets this far: Node's
 * HTTP parser refuses the request line, src/http/client-errors.ts.)
 */
export function guardPath(req: Request, _res: Response, next: NextFunction): void {
  const raw = req.originalUrl;
  const end = raw.indexOf('?');
  const path = end < 0 ? raw : raw.slice(0, end);
  if (!path.includes('%')) return next();
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return next(new ValidationError('The request path has malformed percent-encoding (a % not followed by two hex digits, or bytes that are no UTF-8 text)'));
  }
  if (CONTROL.test(decoded)) return next(new ValidationError('The request path must not contain control characters (U+0000 to U+001F, U+007F), percent-encoded or not'));
  next();
}

/** Query strings of every path: a NUL in a parameter name or value is a 400 naming it. */
export function guardQuery(req: Request, _res: Response, next: NextFunction): void {
  const raw = req.originalUrl.indexOf('?');
  if (raw < 0 || !/%00/.test(req.originalUrl.slice(raw))) return next();
  try {
    for (const [k, v] of new URLSearchParams(req.originalUrl.slice(raw + 1))) {
      if (k.includes(NUL) || v.includes(NUL)) throw ValidationError.field(k.replaceAll(NUL, '\\u0000').slice(0, 40), 'must not contain the NUL character (U+0000)');
    }
    next();
  } catch (e) {
    next(e);
  }
}

const GRAPHQL_TYPES = ['application/json', 'application/graphql-response+json', 'application/graphql', 'application/x-www-form-urlencoded', 'multipart/form-data'];

/**
 * What yoga would answer with an empty body or a 500, answered as a GraphQL response instead: a path
 * below /graphql (404), a POST body of a type GraphQL over HTTP does not know (415), and GET
 * `variables`/`extensions` that are not JSON objects (400).
 */
export function guardGraphqlHttp(req: Request, _res: Response, next: NextFunction): void {
  if (req.path !== '/') return next(new NoSuchEndpointError(req.method, req.originalUrl.split('?')[0]));
  if (req.method === 'POST' && !req.is(GRAPHQL_TYPES)) {
    return next(new AppError(`POST /graphql takes application/json (or application/graphql, a form, multipart); got ${String(req.get('content-type') ?? 'no Content-Type').slice(0, 60)}`, 415, 'common.unsupported_media_type'));
  }
  if (req.method === 'GET') {
    for (const name of ['variables', 'extensions']) {
      const raw = req.query[name];
      if (raw === undefined) continue;
      let value: unknown;
      try {
        value = typeof raw === 'string' ? JSON.parse(raw) : undefined;
      } catch {
        /* reported below */
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return next(ValidationError.field(name, 'must be a JSON object'));
    }
  }
  next();
}
