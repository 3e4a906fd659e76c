import { timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { getOperationAST } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { queryTurns } from '../db/fair-queries.ts';
import type { Admission } from '../http/admission.ts';
import { ForbiddenError, UnauthenticatedError } from '../shared/errors.ts';

/**
 * The process's metrics in the Prometheus text format (GET /metrics, prom-client). One registry per
 * app, so two apps in one process (tests) count apart. Labels are bounded: an operation is the
 * operation table's name (the MCP tool's and the OpenAPI operationId), never a raw path; a GraphQL
 * operation name is the client's, so only the first MAX_GRAPHQL_NAMES well-formed names get a series
 * of their own and the rest count as "other".
 */
export interface Metrics {
  registry: Registry;
  /** one HTTP request answered: its operation, method, status and seconds */
  observeRequest(operation: string, method: string, status: number, seconds: number): void;
  /** one GraphQL operation executed (`outcome`: ok, or error when the result has errors) */
  observeGraphql(operationName: string | undefined, operationType: string, outcome: 'ok' | 'error'): void;
  /** one MCP tool call (`outcome`: ok, error: the tool answered isError) */
  observeToolCall(tool: string, outcome: 'ok' | 'error'): void;
  /** one job run ended: completed, failed (to be retried) or given_up */
  observeJob(queue: string, outcome: 'completed' | 'failed' | 'given_up', seconds: number): void;
  /** one attempt to deliver a webhook message: succeeded (a 2xx) or failed, and how long it took */
  observeWebhookAttempt(outcome: 'succeeded' | 'failed', seconds: number): void;
  /** reads the admission gate's state at each scrape */
  watchAdmission(admission: Admission): void;
  /** reads the job queue's depth (jobs waiting or running, by queue and state) at each scrape */
  watchJobQueue(depth: () => Promise<{ queue: string; state: string; count: number }[]>): void;
}

const MAX_GRAPHQL_NAMES = 200;
const GRAPHQL_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** seconds: from a cached read to a report rendered as a file */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 1800];

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by operation (the operation table name; graphql, mcp, oauth, health, metrics, unmatched, other), method and status',
    labelNames: ['operation', 'method', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request received to its answer sent, by operation and method',
    labelNames: ['operation', 'method'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused by a rate limit (429), by operation',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  const graphqlOperations = new Counter({
    name: 'graphql_operations_total',
    help: 'GraphQL operations executed, by operation name (the client\'s; "anonymous", or "other" beyond the first 200 names), type and outcome',
    labelNames: ['operation_name', 'operation_type', 'outcome'] as const,
    registers: [registry],
  });
  const toolCalls = new Counter({
    name: 'mcp_tool_calls_total',
    help: 'MCP tool calls, by tool and outcome (error: the tool answered isError)',
    labelNames: ['tool', 'outcome'] as const,
    registers: [registry],
  });
  const jobRuns = new Counter({
    name: 'job_runs_total',
    help: 'Job runs ended in this process, by queue and outcome (completed; failed: to be retried; given_up)',
    labelNames: ['queue', 'outcome'] as const,
    registers: [registry],
  });
  const jobDuration = new Histogram({
    name: 'job_run_duration_seconds',
    help: 'How long job runs took in this process, by queue',
    labelNames: ['queue'] as const,
    buckets: JOB_BUCKETS,
    registers: [registry],
  });
  const webhookAttempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts this process made, by outcome (succeeded: a 2xx answer; failed: another status, a timeout, a refused address)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const webhookDuration = new Histogram({
    name: 'webhook_delivery_duration_seconds',
    help: 'How long webhook delivery attempts took (the receiver has 5 s)',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  let admission: Admission | undefined;
  new Gauge({
    name: 'admission_requests',
    help: 'Requests in the admission gate: slots at work (a heavy request holds several) and requests waiting for one',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const s = admission?.stats();
      this.set({ state: 'active' }, s?.active ?? 0);
      this.set({ state: 'queued' }, s?.queued ?? 0);
    },
  });
  new Counter({
    name: 'admission_shed_total',
    help: 'Requests the admission gate refused with 503 (queue full, waited too long, event loop lagging)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(admission?.stats().shed ?? 0);
    },
  });
  let depth: (() => Promise<{ queue: string; state: string; count: number }[]>) | undefined;
  new Gauge({
    name: 'job_queue_depth',
    help: 'Jobs waiting (created, retry) or running (active) in the shared queue, by queue and state',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      if (!depth) return;
      this.reset();
      try {
        for (const row of await depth()) this.set({ queue: row.queue, state: row.state }, row.count);
      } catch {
        // the database is away: the gauge is left empty for this scrape (/health/ready says why)
      }
    },
  });
  new Gauge({
    name: 'db_query_turns',
    help: 'Database query turns of this process (src/db/fair-queries.ts): slots (PGlite 1, PostgreSQL the pool size), running and waiting queries',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      this.set({ state: 'slots' }, queryTurns.slots);
      this.set({ state: 'running' }, queryTurns.running);
      this.set({ state: 'waiting' }, queryTurns.waiting);
    },
  });

  const graphqlNames = new Set<string>();
  const graphqlName = (name: string | undefined) => {
    if (!name) return 'anonymous';
    if (graphqlNames.has(name)) return name;
    if (!GRAPHQL_NAME.test(name) || graphqlNames.size >= MAX_GRAPHQL_NAMES) return 'other';
    graphqlNames.add(name);
    return name;
  };

  return {
    registry,
    observeRequest(operation, method, status, seconds) {
      httpRequests.inc({ operation, method, status: String(status) });
      httpDuration.observe({ operation, method }, seconds);
      if (status === 429) rateLimited.inc({ operation });
    },
    observeGraphql(operationName, operationType, outcome) {
      graphqlOperations.inc({ operation_name: graphqlName(operationName), operation_type: operationType, outcome });
    },
    observeToolCall(tool, outcome) {
      toolCalls.inc({ tool, outcome });
    },
    observeJob(queue, outcome, seconds) {
      jobRuns.inc({ queue, outcome });
      jobDuration.observe({ queue }, seconds);
    },
    observeWebhookAttempt(outcome, seconds) {
      webhookAttempts.inc({ outcome });
      webhookDuration.observe(seconds);
    },
    watchAdmission(a) {
      admission = a;
    },
    watchJobQueue(d) {
      depth = d;
    },
  };
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The operation a request counts under: the table's name the REST route set (res.locals.operation),
 * else the entry point its path belongs to. Never the raw path, whose ids would make a series each.
 */
export function operationOf(req: Request, res: Response): string {
  if (typeof res.locals.operation === 'string') return res.locals.operation;
  const path = req.originalUrl.split('?')[0];
  if (path === '/graphql' || path.startsWith('/graphql/')) return 'graphql';
  if (path === '/mcp') return 'mcp';
  if (path.startsWith('/v2/oauth') || path.startsWith('/public/v2/oauth') || path.startsWith('/.well-known/')) return 'oauth';
  if (path === '/health' || path.startsWith('/health/')) return 'health';
  if (path === '/metrics') return 'metrics';
  if (path.startsWith('/api/v2') || path.startsWith('/public/v2')) return 'unmatched';
  return 'other';
}

/** The method as a label: one of HTTP's, else OTHER (a client may send any token). */
export const methodLabel = (method: string) => (METHODS.has(method) ? method : 'OTHER');

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * Whether a request comes from this machine: its socket's peer is loopback and no proxy forwarded it
 * (a reverse proxy on the same host forwards the world's requests from loopback, with
 * X-Forwarded-For or Forwarded: those need the token).
 */
function fromLoopback(req: Request): boolean {
  return LOOPBACK.test(req.socket.remoteAddress ?? '') && req.headers['x-forwarded-for'] === undefined && req.headers.forwarded === undefined;
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * GET /metrics: open to loopback; other addresses need `Authorization: Bearer <METRICS_TOKEN>`, and
 * without a METRICS_TOKEN they are refused (403). Answers the registry's text format.
 */
export function metricsRoute(metrics: Metrics, token: string | undefined): RequestHandler {
  return (req, res, next) => {
    if (!fromLoopback(req)) {
      if (!token) return next(new ForbiddenError('/metrics answers loopback only; set METRICS_TOKEN to let other addresses read it with that bearer token'));
      const given = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
      if (!given || !sameToken(given, token)) {
        return next(new UnauthenticatedError('GET /metrics from another address than loopback needs Authorization: Bearer <METRICS_TOKEN>', 'Bearer realm="metrics"'));
      }
    }
    metrics.registry.metrics().then((text) => {
      res.setHeader('Content-Type', metrics.registry.contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.end(text);
    }, next);
  };
}

/**
 * The yoga plugin counting executed GraphQL operations (graphql_operations_total): each by the
 * operation it ran, ok or error by whether its result has errors; a subscription once, when its
 * stream starts (ok) or is refused (error). Operations refused before
 * execution (parse, validation, limits) count as requests of operation "graphql" only.
 */
export function graphqlMetrics(metrics: Metrics): Plugin {
  return {
    onSubscribe({ args }) {
      const operation = getOperationAST(args.document, args.operationName ?? undefined);
      return {
        onSubscribeResult({ result }) {
          // a stream started is ok; a refusal is a single result with errors
          const refused = !isAsyncIterable(result) && !!(result as { errors?: unknown[] }).errors?.length;
          metrics.observeGraphql(operation?.name?.value, 'subscription', refused ? 'error' : 'ok');
        },
      };
    },
    onExecute({ args }) {
      const operation = getOperationAST(args.document, args.operationName ?? undefined);
      const name = operation?.name?.value;
      const type = operation?.operation ?? 'unknown';
      return {
        onExecuteDone({ result }) {
          if (isAsyncIterable(result)) {
            metrics.observeGraphql(name, type, 'ok');
            return;
          }
          metrics.observeGraphql(name, type, result.errors?.length ? 'error' : 'ok');
        },
      };
    },
  };
}
