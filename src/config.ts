import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JWK } from 'jose';
import { z } from 'zod';
import { DEFAULT_QUERY_LIMITS, type QueryLimits } from './shared/query-limits.ts';
import { INTEGRATION_SERVICES, type IntegrationService } from './integrations/services.ts';
import { DEFAULT_FILE_LIMITS } from './modules/files/file-limits.ts';
import { DEFAULT_CHANGE_RETENTION_DAYS } from './modules/changes/changes.rules.ts';
import { DEFAULT_WORKER_THREADS, type HeavyWorkOptions } from './workers/heavy-work.ts';

/** The embedded database's backup, unless BACKUP_SCHEDULE says otherwise: nightly at 02:00 UTC. */
export const DEFAULT_BACKUP_SCHEDULE = '0 2 * * *';

/**
 * The only reader of process.env. Every variable the service understands is listed here (and in the
 * README); an invalid value stops the process at boot with a message naming the variable.
 */
const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Public base URL; defaults to http://localhost:PORT */
  BASE_URL: z.url().optional(),
  /** PostgreSQL connection string; when unset the embedded PGlite database in DATA_DIR is used */
  DATABASE_URL: z.string().min(1).optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** pretty: one coloured line per entry (pino-pretty); json: one JSON object per line; unset: pretty on a terminal */
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  /** Lifetime of the session tokens issued by POST /v2/oauth/login */
  /** Days the change feed keeps changes (GET /changes); a cursor older than this is 410 */
  CHANGE_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(DEFAULT_CHANGE_RETENTION_DAYS),
  /** Lifetime of the session tokens issued by POST /v2/oauth/login */
  SESSION_TTL_SECONDS: z.coerce.number().int().positive().default(3600),
  /** How long a process keeps a verified session token before looking it up again (0: every request) */
  SESSION_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(5),
  /** Seed the demo firm on first start of an empty database; default: on for the embedded database only */
  SEED_DEMO: z.enum(['true', 'false']).optional(),
  /** JSON Web Key Set with private RS256 keys that sign access tokens (first key signs); default: generated once, kept in the database */
  OAUTH_JWKS: z.string().optional(),
  /** Comma-separated secrets that sign the authorization server's cookies (first signs); default: generated once, kept in the database */
  OAUTH_COOKIE_KEYS: z.string().optional(),
  /**
   * `true` lets webhook URLs be http and resolve to loopback, private, link-local or unique-local
   * addresses (development and tests); by default they must be https and public (src/modules/webhooks)
   */
  WEBHOOK_ALLOW_PRIVATE_URLS: z.enum(['true', 'false']).default('false'),
  /** Origins browsers may call the API from: `*` (default: bearer tokens, no cookies) or a comma-separated list */
  CORS_ORIGINS: z.string().default('*'),
  /**
   * Origins POST /mcp accepts requests from besides BASE_URL's own (the MCP transport's check against
   * DNS rebinding: a request whose Origin is not one of them is 403; one without Origin passes):
   * comma-separated origins. Default: CORS_ORIGINS when it is a list, none when it is `*`.
   */
  MCP_ALLOWED_ORIGINS: z
    .string()
    .refine((v) => v.trim() !== '*', 'must list origins (https://app.example,https://admin.example): `*` would turn off the check against DNS rebinding the MCP transport requires')
    .refine((v) => splitOrigins(v).every((o) => asOrigin(o) !== undefined), 'must be comma-separated origins: scheme://host[:port] (http or https), no path')
    .optional(),
  /**
   * express 'trust proxy': off by default, so X-Forwarded-For is ignored and rate limits count the
   * peer's address. `true`, a hop count, or addresses/subnets (e.g. `loopback`, `10.0.0.0/8`).
   */
  TRUST_PROXY: z.string().default('false'),
  /**
   * Slots of work at once (a request holds one, heavy work several); the rest queue, users served in
   * turn (src/http/admission.ts). Default: 4 on the embedded database (one connection), 16 on
   * PostgreSQL. 0 turns the gate off.
   */
  REQUEST_CONCURRENCY: z.coerce.number().int().min(0).max(10_000).optional(),
  /**
   * Slots of REQUEST_CONCURRENCY one user (one OAuth client with a client_credentials token, one
   * address without a token) may hold at once; its surplus waits behind other users' requests.
   * Default: half of REQUEST_CONCURRENCY, at least 1
   */
  REQUEST_CONCURRENCY_PER_USER: z.coerce.number().int().min(1).max(10_000).optional(),
  /** Requests that may wait for a turn; more are answered 503 at once */
  REQUEST_QUEUE_LIMIT: z.coerce.number().int().min(0).max(1_000_000).default(1000),
  /** How long a request may wait for its turn before it is answered 503 with Retry-After (ms) */
  REQUEST_QUEUE_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(5000),
  /** While the event loop lags more than this (ms), new requests are answered 503 at once; 0: never */
  REQUEST_MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(1000),
  /** Worker threads for heavy work: reading uploaded documents, rendering report files (src/workers/); default: cores − 1, 1 to 4 */
  WORKER_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  /** The JavaScript heap one worker may use (MB); a task beyond it fails and the worker is replaced */
  WORKER_MAX_MEMORY_MB: z.coerce.number().int().min(16).max(16_384).default(256),
  /** How long one heavy task may run (ms); a task beyond it fails and the worker is replaced */
  WORKER_TASK_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /** Pages of an uploaded PDF at most (POST /files: a longer one is 400) */
  MAX_PDF_PAGES: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_FILE_LIMITS.maxPdfPages),
  /** MB the compressed parts of one file (a PDF's streams, a ZIP's entries) may inflate to */
  MAX_INFLATED_MB: z.coerce.number().int().min(1).max(100_000).default(DEFAULT_FILE_LIMITS.maxInflatedBytes / 1024 / 1024),
  /** MB of XML a SAF-T import takes at most (a ZIP's entry counted as it inflates): src/modules/saft-imports/README.md */
  SAFT_IMPORT_MAX_XML_MB: z.coerce.number().int().min(1).max(100_000).default(1024),
  /** Pixels (width × height) of an uploaded JPEG or PNG at most */
  MAX_IMAGE_PIXELS: z.coerce.number().int().min(1).max(10_000_000_000).default(DEFAULT_FILE_LIMITS.maxImagePixels),
  /** Entries of an uploaded ZIP archive (office files included) at most */
  MAX_ZIP_ENTRIES: z.coerce.number().int().min(1).max(10_000_000).default(DEFAULT_FILE_LIMITS.maxZipEntries),
  /**
   * A request whose body has not been received completely this long after it was admitted is
   * answered 408 and its connection closed; a request's headers must arrive within it too (ms)
   */
  REQUEST_BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /**
   * A /graphql query whose cost (GRAPHQL_MAX_COST's measure) is beyond this holds cost ÷ this slots
   * (rounded up) of its user's share while it runs, at most the whole share (src/http/admission.ts)
   */
  GRAPHQL_HEAVY_COST: z.coerce.number().int().positive().default(10_000),
  /** Requests per user (per address for /graphql without a token) to /api/v2, /graphql and /mcp together per window; 0 or off: no limit */
  API_RATE_LIMIT: z.string().regex(/^(\d+|off)$/i, 'must be a number of requests, or 0 or off for no limit').default('600'),
  /** The API limit's window */
  API_RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().positive().max(86_400).default(60),
  /**
   * Limits on the GraphQL documents clients send to /graphql and the MCP GraphQL tools (src/shared/query-limits.ts):
   * tokens, depth (fields on the longest path), aliases, fields (fragments expanded) and cost (objects the query may return)
   */
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().positive().default(DEFAULT_QUERY_LIMITS.maxTokens),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().positive().default(DEFAULT_QUERY_LIMITS.maxDepth),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).default(DEFAULT_QUERY_LIMITS.maxAliases),
  GRAPHQL_MAX_FIELDS: z.coerce.number().int().positive().default(DEFAULT_QUERY_LIMITS.maxFields),
  GRAPHQL_MAX_COST: z.coerce.number().int().positive().default(DEFAULT_QUERY_LIMITS.maxCost),
  /**
   * A JSON file of trusted GraphQL documents by hash, `{"<sha256>": "<document>"}` (the
   * persisted-documents.json of @graphql-codegen/client-preset): /graphql runs them by
   * `extensions.persistedQuery.sha256Hash` (src/shared/persisted-operations.ts)
   */
  GRAPHQL_PERSISTED_OPERATIONS: z.string().min(1).optional(),
  /** true: /graphql runs only the documents of GRAPHQL_PERSISTED_OPERATIONS (no other document, no automatic registration) */
  GRAPHQL_PERSISTED_OPERATIONS_ONLY: z.enum(['true', 'false']).default('false'),
  /**
   * A bearer token that lets addresses other than loopback read GET /metrics (src/observability);
   * unset: /metrics answers loopback only
   */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  // src/backup/README.md: a cron expression (UTC) or "off"; default nightly at 02:00 for the embedded database, off on PostgreSQL
  BACKUP_SCHEDULE: z
    .string()
    .regex(/^(off|(\S+\s+){4}\S+)$/, 'must be a cron expression of five fields (minute hour day month weekday) or "off"')
    .optional(),
  BACKUP_DIR: z.string().min(1).optional(),
  BACKUP_KEEP: z.coerce.number().int().min(1).max(1000).default(7),
  // read by src/observability/tracing.mjs (the SDK); checked here so a typo stops the start
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
  /** SMTP server for outgoing mail (smtp://user:password@host:587, smtps:// for TLS from the start); unset: .eml files in DATA_DIR/outbox */
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  /** Sender of outgoing mail; default "Accounting API" <no-reply@host of BASE_URL> */
  MAIL_FROM: z.string().min(3).optional(),
  /**
   * The link an invitation e-mail carries, with `{token}` where the invitation's token goes (the page
   * of a front end that shows it and takes the new user's details); default BASE_URL/public/v2/invitations/{token}
   */
  INVITATION_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .refine((u) => u.includes('{token}'), 'must contain {token}, where the invitation token goes')
    .optional(),
  /** The chat assistant: base URL of an OpenAI-compatible chat-completions API (…/v1); unset: no assistant */
  ASSISTANT_URL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL (the API base, e.g. http://127.0.0.1:8080/v1)' }).optional(),
  /** the model name sent with every request (required with ASSISTANT_URL) */
  ASSISTANT_MODEL: z.string().min(1).optional(),
  /** bearer token for the model API, if it needs one */
  ASSISTANT_API_KEY: z.string().min(1).optional(),
  /** most model requests (rounds of tool calls) for one reply */
  ASSISTANT_MAX_ROUNDS: z.coerce.number().int().min(1).max(50).default(8),
  /** longest time one reply may take, model requests and tool calls together */
  ASSISTANT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(120),
  /** comma-separated modules whose tools the assistant gets (first path segment of their REST paths, as /mcp?modules=); default all */
  ASSISTANT_TOOL_MODULES: z.string().optional(),
  /**
   * External services (src/integrations): each connector's base URL and credentials. A service whose
   * URL is unset is answered by its built-in sandbox, started in this process on first use.
   */
  ...integrationVariables(),
  /** how long one call to an external service may take before it is abandoned (ms) */
  INTEGRATION_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(15_000),
  /** a shared sandbox's address (npm run sandbox): this process uses it instead of starting its own (several processes need one) */
  SANDBOX_URL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
  /** the port of the in-process sandbox of the external services, or of npm run sandbox (0: any free port) */
  SANDBOX_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  /** the sandbox's address as a browser reaches it (its login and confirmation pages); default its own address */
  SANDBOX_PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
}).refine((e) => !e.ASSISTANT_URL || e.ASSISTANT_MODEL, { path: ['ASSISTANT_MODEL'], message: 'is required when ASSISTANT_URL is set' });

/** <SERVICE>_URL, <SERVICE>_CLIENT_ID and <SERVICE>_CLIENT_SECRET for each external service */
function integrationVariables() {
  const url = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL (the API base)' }).optional();
  const entries = INTEGRATION_SERVICES.flatMap((service) => {
    const name = service.toUpperCase();
    return [
      [`${name}_URL`, url],
      [`${name}_CLIENT_ID`, z.string().min(1).optional()],
      [`${name}_CLIENT_SECRET`, z.string().min(1).optional()],
    ] as const;
  });
  return Object.fromEntries(entries) as Record<`${Uppercase<IntegrationService>}_${'URL' | 'CLIENT_ID' | 'CLIENT_SECRET'}`, z.ZodOptional<z.ZodString>>;
}

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  databaseUrl: string | undefined;
  dataDir: string;
  logLevel: z.infer<typeof schema>['LOG_LEVEL'];
  /** LOG_FORMAT; undefined: pretty when stdout is a terminal, else JSON */
  logFormat: 'json' | 'pretty' | undefined;
  sessionTtlSeconds: number;
  /** seconds a verified session token is kept in this process (SESSION_CACHE_SECONDS) */
  sessionCacheSeconds: number;
  seedDemo: boolean;
  /** configured signing keys (private JWKs), when OAUTH_JWKS is set */
  oauthJwks: { keys: JWK[] } | undefined;
  oauthCookieKeys: string[] | undefined;
  /** WEBHOOK_ALLOW_PRIVATE_URLS: webhook URLs may be http and private (development, tests) */
  webhookAllowPrivateUrls: boolean;
  /** outgoing mail goes to this SMTP server; unset: written to mailOutbox */
  smtpUrl: string | undefined;
  /** METRICS_TOKEN: the bearer token /metrics asks of other addresses than loopback */
  metricsToken: string | undefined;
  /** scheduled backups (src/backup/README.md): BACKUP_SCHEDULE (undefined: none), BACKUP_DIR, BACKUP_KEEP */
  backup: { schedule: string | undefined; dir: string; keep: number };
  /** OTEL_EXPORTER_OTLP_ENDPOINT set: OpenTelemetry traces (src/observability/README.md) */
  tracing: boolean;
  /** '*' or the allowed origins */
  corsOrigins: '*' | string[];
  /** the origins POST /mcp takes requests from (BASE_URL's, then MCP_ALLOWED_ORIGINS or the CORS_ORIGINS list); requests without Origin pass too */
  mcpOrigins: string[];
  trustProxy: boolean | number | string;
  /** the heavy-work pool (src/workers/heavy-work.ts) and the limits on uploaded files it applies */
  heavyWork: HeavyWorkOptions;
  /** SAF-T import: bytes of XML at most (SAFT_IMPORT_MAX_XML_MB) */
  saftImportMaxXmlBytes: number;
  /** admission control: slots at once (0: off), slots per user, waiting at most, longest wait */
  admission: { concurrency: number; perKey: number; queueLimit: number; maxWaitMs: number; maxEventLoopDelayMs: number };
  /** the body must be in this long after admission, and the headers this long after the first byte (ms) */
  requestBodyTimeoutMs: number;
  /** a /graphql query's cost per slot of its user's share beyond one (GRAPHQL_HEAVY_COST) */
  graphqlHeavyCost: number;
  /** the per-user API limit; null: off */
  apiRateLimit: { limit: number; windowMs: number } | null;
  /** limits on GraphQL documents (/graphql, MCP graphql_query and graphql_mutation) */
  graphqlLimits: QueryLimits;
  /** trusted documents by hash (GRAPHQL_PERSISTED_OPERATIONS) and whether only they run (…_ONLY) */
  persistedOperations: { trusted: Map<string, string> | undefined; only: boolean };
  /** DATA_DIR/outbox: where messages are written as .eml files when there is no SMTP server */
  mailOutbox: string;
  mailFrom: string;
  /** the invitation link with `{token}` in it (INVITATION_URL) */
  invitationUrl: string;
  /** days the change feed keeps changes (CHANGE_RETENTION_DAYS) */
  changeRetentionDays: number;
  /** the chat assistant's model API; undefined: the assistant is off */
  assistant: AssistantConfig | undefined;
  /** the external services' connectors (src/integrations) */
  integrations: IntegrationsConfig;
}

export interface IntegrationsConfig {
  /** per service: its API base URL (undefined: the in-process sandbox) and the credentials the connector sends */
  services: Record<IntegrationService, { url: string | undefined; clientId: string | undefined; clientSecret: string | undefined }>;
  timeoutMs: number;
  /** SANDBOX_URL: a sandbox shared by several processes (npm run sandbox); undefined: started in this process */
  sandboxUrl: string | undefined;
  sandboxPort: number;
  sandboxHost: string;
  sandboxPublicUrl: string | undefined;
  /** our own address (BASE_URL), where an external service sends a browser back (the login callbacks) */
  appBaseUrl: string;
  /** origins a browser may be sent on to after a login callback (`return_to`): BASE_URL's and CORS_ORIGINS when it lists them */
  appOrigins: string[];
}

export interface AssistantConfig {
  /** API base; requests go to `${url}/chat/completions` */
  url: string;
  model: string;
  apiKey: string | undefined;
  maxRounds: number;
  timeoutMs: number;
  /** the modules whose tools it gets; undefined: all */
  toolModules: string[] | undefined;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable counts as unset (VAR= in a shell or .env file).
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(given);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const oauthJwks = e.OAUTH_JWKS === undefined ? undefined : parseJwks(e.OAUTH_JWKS);
  const baseUrl = (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  const corsOrigins = e.CORS_ORIGINS.trim() === '*' ? '*' : splitOrigins(e.CORS_ORIGINS);
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    sessionTtlSeconds: e.SESSION_TTL_SECONDS,
    sessionCacheSeconds: e.SESSION_CACHE_SECONDS,
    seedDemo: e.SEED_DEMO ? e.SEED_DEMO === 'true' : !e.DATABASE_URL,
    oauthJwks,
    oauthCookieKeys: e.OAUTH_COOKIE_KEYS?.split(',').map((k) => k.trim()).filter(Boolean),
    webhookAllowPrivateUrls: e.WEBHOOK_ALLOW_PRIVATE_URLS === 'true',
    smtpUrl: e.SMTP_URL,
    metricsToken: e.METRICS_TOKEN,
    tracing: !!e.OTEL_EXPORTER_OTLP_ENDPOINT,
    backup: {
      schedule: e.BACKUP_SCHEDULE === 'off' ? undefined : (e.BACKUP_SCHEDULE ?? (e.DATABASE_URL ? undefined : DEFAULT_BACKUP_SCHEDULE)),
      dir: e.BACKUP_DIR ?? join(e.DATA_DIR, 'backups'),
      keep: e.BACKUP_KEEP,
    },
    corsOrigins,
    mcpOrigins: [
      ...new Set([
        new URL(baseUrl).origin,
        ...(e.MCP_ALLOWED_ORIGINS !== undefined ? splitOrigins(e.MCP_ALLOWED_ORIGINS) : corsOrigins === '*' ? [] : corsOrigins).map((o) => asOrigin(o) ?? o),
      ]),
    ],
    trustProxy: /^(false|off|no|0)$/i.test(e.TRUST_PROXY) ? false : /^(true|on|yes)$/i.test(e.TRUST_PROXY) ? true : /^\d+$/.test(e.TRUST_PROXY) ? Number(e.TRUST_PROXY) : e.TRUST_PROXY,
    saftImportMaxXmlBytes: e.SAFT_IMPORT_MAX_XML_MB * 1024 * 1024,
    heavyWork: {
      threads: e.WORKER_THREADS ?? DEFAULT_WORKER_THREADS,
      maxMemoryMb: e.WORKER_MAX_MEMORY_MB,
      timeoutMs: e.WORKER_TASK_TIMEOUT_MS,
      limits: { maxPdfPages: e.MAX_PDF_PAGES, maxInflatedBytes: e.MAX_INFLATED_MB * 1024 * 1024, maxImagePixels: e.MAX_IMAGE_PIXELS, maxZipEntries: e.MAX_ZIP_ENTRIES },
    },
    admission: admission(e),
    requestBodyTimeoutMs: e.REQUEST_BODY_TIMEOUT_MS,
    graphqlHeavyCost: e.GRAPHQL_HEAVY_COST,
    apiRateLimit: /^(0+|off)$/i.test(e.API_RATE_LIMIT) ? null : { limit: Number(e.API_RATE_LIMIT), windowMs: e.API_RATE_LIMIT_WINDOW_SECONDS * 1000 },
    graphqlLimits: { maxTokens: e.GRAPHQL_MAX_TOKENS, maxDepth: e.GRAPHQL_MAX_DEPTH, maxAliases: e.GRAPHQL_MAX_ALIASES, maxFields: e.GRAPHQL_MAX_FIELDS, maxCost: e.GRAPHQL_MAX_COST },
    persistedOperations: persistedOperations(e.GRAPHQL_PERSISTED_OPERATIONS, e.GRAPHQL_PERSISTED_OPERATIONS_ONLY === 'true'),
    mailOutbox: join(e.DATA_DIR, 'outbox'),
    mailFrom: e.MAIL_FROM ?? `"Accounting API" <no-reply@${new URL(baseUrl).hostname}>`,
    invitationUrl: e.INVITATION_URL ?? `${baseUrl}/public/v2/invitations/{token}`,
    changeRetentionDays: e.CHANGE_RETENTION_DAYS,
    assistant: e.ASSISTANT_URL
      ? {
          url: e.ASSISTANT_URL.replace(/\/+$/, ''),
          model: e.ASSISTANT_MODEL!,
          apiKey: e.ASSISTANT_API_KEY,
          maxRounds: e.ASSISTANT_MAX_ROUNDS,
          timeoutMs: e.ASSISTANT_TIMEOUT_SECONDS * 1000,
          toolModules: e.ASSISTANT_TOOL_MODULES?.split(/[,; ]+/).filter(Boolean),
        }
      : undefined,
    integrations: {
      services: Object.fromEntries(
        INTEGRATION_SERVICES.map((service) => {
          const name = service.toUpperCase() as Uppercase<IntegrationService>;
          return [service, { url: e[`${name}_URL`]?.replace(/\/+$/, ''), clientId: e[`${name}_CLIENT_ID`], clientSecret: e[`${name}_CLIENT_SECRET`] }];
        }),
      ) as IntegrationsConfig['services'],
      timeoutMs: e.INTEGRATION_TIMEOUT_MS,
      sandboxUrl: e.SANDBOX_URL?.replace(/\/+$/, ''),
      sandboxPort: e.SANDBOX_PORT,
      sandboxHost: '127.0.0.1',
      sandboxPublicUrl: e.SANDBOX_PUBLIC_URL?.replace(/\/+$/, ''),
      appBaseUrl: baseUrl,
      appOrigins: [new URL(baseUrl).origin, ...(corsOrigins === '*' ? [] : corsOrigins)],
    },
  };
}

/** Admission control's settings: a user's share is half the slots unless set, never more than all of them. */
function admission(e: z.infer<typeof schema>): Config['admission'] {
  const concurrency = e.REQUEST_CONCURRENCY ?? (e.DATABASE_URL ? 16 : 4);
  const perKey = Math.min(e.REQUEST_CONCURRENCY_PER_USER ?? Math.max(1, Math.floor(concurrency / 2)), Math.max(1, concurrency));
  return { concurrency, perKey, queueLimit: e.REQUEST_QUEUE_LIMIT, maxWaitMs: e.REQUEST_QUEUE_TIMEOUT_MS, maxEventLoopDelayMs: e.REQUEST_MAX_EVENT_LOOP_DELAY_MS };
}

/** A comma-separated list of origins, each trimmed and without a trailing slash. */
function splitOrigins(list: string): string[] {
  return list.split(',').map((o) => o.trim().replace(/\/+$/, '')).filter(Boolean);
}

/** An http(s) origin as a browser sends it in `Origin` (lower-case host, no default port), or undefined when `text` is none. */
export function asOrigin(text: string): string | undefined {
  if (!URL.canParse(text)) return undefined;
  const u = new URL(text);
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password || u.pathname !== '/' || u.search || u.hash) return undefined;
  return u.origin;
}

/** The manifest of GRAPHQL_PERSISTED_OPERATIONS, read once at boot: a JSON object of hash → document. */
function persistedOperations(path: string | undefined, only: boolean): Config['persistedOperations'] {
  const fail = (why: string) => new ConfigError(`Invalid configuration:\n  ${why}`);
  if (path === undefined) {
    if (only) throw fail('GRAPHQL_PERSISTED_OPERATIONS_ONLY: needs GRAPHQL_PERSISTED_OPERATIONS, the file of the documents to run');
    return { trusted: undefined, only };
  }
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw fail(`GRAPHQL_PERSISTED_OPERATIONS: cannot read ${path} as JSON: ${(e as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw fail('GRAPHQL_PERSISTED_OPERATIONS: expected a JSON object {"<hash>": "<GraphQL document>", …}');
  const trusted = new Map<string, string>();
  for (const [hash, document] of Object.entries(value)) {
    if (typeof document !== 'string' || !document.trim()) throw fail(`GRAPHQL_PERSISTED_OPERATIONS: the value of ${hash.slice(0, 80)} is not a GraphQL document (a string)`);
    trusted.set(hash, document);
  }
  return { trusted, only };
}

function parseJwks(text: string): { keys: JWK[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigError('Invalid configuration:\n  OAUTH_JWKS: not JSON (expected {"keys":[<private RSA JWK>, ...]})');
  }
  const keys = (value as { keys?: unknown })?.keys;
  if (!Array.isArray(keys) || !keys.length || !keys.every((k: JWK) => k && k.kty === 'RSA' && typeof k.d === 'string')) {
    throw new ConfigError('Invalid configuration:\n  OAUTH_JWKS: expected {"keys":[...]} with at least one private RSA key (kty RSA with d)');
  }
  return { keys: keys as JWK[] };
}
