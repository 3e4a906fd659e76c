import type { z } from 'zod';
import type { IntegrationsConfig } from '../config.ts';
import { SERVICE_TITLES, type IntegrationService } from './services.ts';

/**
 * What went wrong talking to an external service: it did not answer in time, could not be reached,
 * answered with an error status, or answered something that is not what its API promises.
 */
export type UpstreamFailure = 'timeout' | 'unreachable' | 'status' | 'malformed';

/**
 * A failed call to an external service. Services never let it reach a client as it is: they turn it
 * into the status their operation documents (upstreamFailed in ./integrations.ts), and make the call
 * before they write anything, so a failure leaves nothing half-written.
 */
export class UpstreamError extends Error {
  constructor(
    readonly service: IntegrationService,
    readonly failure: UpstreamFailure,
    message: string,
    /** the upstream's status, for 'status' (and 'malformed' answers) */
    readonly status?: number,
    /** the upstream's parsed error body, for 'status' */
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

type QueryValue = string | number | boolean | null | undefined | readonly (string | number)[];

export interface UpstreamRequest {
  query?: Readonly<Record<string, QueryValue>>;
  /** sent as JSON */
  body?: unknown;
  headers?: Readonly<Record<string, string>>;
  /** a bearer token (a user's portal token, a system user's token); without one the service's own credentials go as HTTP Basic */
  token?: string;
  /** how to read the answer: JSON (default), raw bytes (a PDF), or text */
  as?: 'json' | 'bytes' | 'text';
  /** error statuses that are answers the caller handles (a 404 of a lookup) rather than failures */
  accept?: readonly number[];
  /** instead of the configured INTEGRATION_TIMEOUT_MS */
  timeoutMs?: number;
}

export interface UpstreamResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

/** Where a connector sends its calls (`api`) and where it sends a browser (`public`: login and confirmation pages). */
export interface ConnectorBase {
  api: string;
  public: string;
}

/**
 * A typed HTTP client for one external service at its configured base URL (or the sandbox's): JSON in
 * and out, the configured credentials, a timeout on every call, and every failure an UpstreamError.
 * Each service's typed operations are functions over a Connector in that service's folder.
 */
export class Connector {
  constructor(
    readonly service: IntegrationService,
    private readonly base: () => Promise<ConnectorBase>,
    private readonly credentials: { clientId: string | undefined; clientSecret: string | undefined },
    private readonly timeoutMs: number,
  ) {}

  /** our client id at the service (<SERVICE>_CLIENT_ID), where a call names it (an OpenID Connect authorize URL) */
  get clientId(): string | undefined {
    return this.credentials.clientId;
  }

  get title(): string {
    return SERVICE_TITLES[this.service];
  }

  /** An absolute URL of the service for a browser (an authorization page), from a path under its base. */
  async publicUrl(path: string, query?: UpstreamRequest['query']): Promise<string> {
    return withQuery((await this.base()).public + path, query);
  }

  /** An absolute URL of the service's API. */
  async apiUrl(path: string, query?: UpstreamRequest['query']): Promise<string> {
    return withQuery((await this.base()).api + path, query);
  }

  get<T = unknown>(path: string, options?: UpstreamRequest): Promise<UpstreamResponse<T>> {
    return this.request<T>('GET', path, options);
  }

  post<T = unknown>(path: string, body?: unknown, options?: UpstreamRequest): Promise<UpstreamResponse<T>> {
    return this.request<T>('POST', path, { ...options, body });
  }

  async request<T = unknown>(method: string, path: string, options: UpstreamRequest = {}): Promise<UpstreamResponse<T>> {
    const url = await this.apiUrl(path, options.query);
    const headers: Record<string, string> = { accept: options.as === 'bytes' ? '*/*' : 'application/json', ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    else if (this.credentials.clientId) {
      headers.authorization = `Basic ${Buffer.from(`${this.credentials.clientId}:${this.credentials.clientSecret ?? ''}`).toString('base64')}`;
    }
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const what = `${method} ${path}`;
    let res: Response;
    let bytes: Buffer;
    try {
      // one deadline for the answer and its body: a service that sends headers and then stalls times out too
      const signal = AbortSignal.timeout(timeoutMs);
      res = await fetch(url, { method, headers, body, signal, redirect: 'manual' });
      bytes = Buffer.from(await res.arrayBuffer());
    } catch (e) {
      const name = (e as Error)?.name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new UpstreamError(this.service, 'timeout', `${capitalised(this.title)} did not answer within ${timeoutMs / 1000} s (${what})`);
      }
      throw new UpstreamError(this.service, 'unreachable', `${capitalised(this.title)} could not be reached (${what})`);
    }
    const ok = (res.status >= 200 && res.status < 300) || options.accept?.includes(res.status);
    if (!ok) {
      const parsed = parseJson(bytes);
      const detail = upstreamMessage(parsed);
      throw new UpstreamError(
        this.service,
        'status',
        `${capitalised(this.title)} answered ${res.status}${detail ? `: ${detail}` : ''} (${what})`,
        res.status,
        parsed,
      );
    }
    if (options.as === 'bytes') return { status: res.status, headers: res.headers, body: bytes as T };
    if (options.as === 'text') return { status: res.status, headers: res.headers, body: bytes.toString('utf8') as T };
    if (!bytes.length && (res.status === 204 || res.status === 202)) return { status: res.status, headers: res.headers, body: undefined as T };
    const parsed = parseJson(bytes);
    if (parsed === NOT_JSON) {
      throw new UpstreamError(this.service, 'malformed', `${capitalised(this.title)} answered something that is not JSON (${what})`, res.status);
    }
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  /**
   * The call, with its JSON answer checked against the shape the service's API promises: anything
   * else is a 'malformed' UpstreamError naming the first wrong field.
   */
  async call<S extends z.ZodType>(schema: S, method: string, path: string, options?: UpstreamRequest): Promise<z.infer<S>> {
    const res = await this.request(method, path, options);
    const parsed = schema.safeParse(res.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const at = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
      throw new UpstreamError(this.service, 'malformed', `${capitalised(this.title)} answered in an unexpected shape${at}: ${issue?.message ?? 'invalid'} (${method} ${path})`, res.status);
    }
    return parsed.data;
  }
}

const NOT_JSON = Symbol('not json');

function parseJson(bytes: Buffer): unknown {
  if (!bytes.length) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return NOT_JSON;
  }
}

/** the message an upstream error body carries, in the usual places (error, message, title, detail) */
function upstreamMessage(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  for (const key of ['error_description', 'message', 'detail', 'title', 'error']) {
    const v = b[key];
    if (typeof v === 'string' && v.trim()) return v.trim().slice(0, 300);
    if (v && typeof v === 'object' && typeof (v as { message?: unknown }).message === 'string') return String((v as { message: string }).message).slice(0, 300);
  }
  return undefined;
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function withQuery(url: string, query: UpstreamRequest['query']): string {
  if (!query) return url;
  const u = new URL(url);
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value) u.searchParams.append(key, String(v));
    else u.searchParams.set(key, String(value));
  }
  return u.toString();
}

export type { IntegrationsConfig };
