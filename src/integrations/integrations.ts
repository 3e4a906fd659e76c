import type { IntegrationsConfig } from '../config.ts';
import { AppError } from '../shared/errors.ts';
import type { RequestContext } from '../shared/context.ts';
import { Connector } from './connector.ts';
import { UpstreamError } from './connector.ts';
import { sandbox } from './sandbox/server.ts';
import type { IntegrationService } from './services.ts';

/**
 * The connectors of one app (or job runner): one per external service, at its configured URL or the
 * sandbox's. Services reach them through the request context (integrationsOf).
 */
export interface Integrations {
  connector(service: IntegrationService): Connector;
  /** true when the service is answered by the in-process sandbox (no URL configured) */
  usesSandbox(service: IntegrationService): boolean;
  /** an absolute URL of this app (BASE_URL) for an external service to send a browser back to */
  appUrl(path: string): string;
  /** may a browser be sent on to this URL after a callback (BASE_URL's origin or a CORS_ORIGINS one)? */
  isAppOrigin(url: string): boolean;
}

export function createIntegrations(config: IntegrationsConfig): Integrations {
  const connectors = new Map<IntegrationService, Connector>();
  return {
    usesSandbox: (service) => !config.services[service].url,
    appUrl: (path) => `${config.appBaseUrl}${path}`,
    isAppOrigin(url) {
      try {
        const u = new URL(url);
        return (u.protocol === 'https:' || u.protocol === 'http:') && config.appOrigins.includes(u.origin);
      } catch {
        return false;
      }
    },
    connector(service) {
      let connector = connectors.get(service);
      if (!connector) {
        const { url, clientId, clientSecret } = config.services[service];
        const base = url
          ? () => Promise.resolve({ api: url, public: url })
          : () => sandbox(config).then((s) => ({ api: `${s.url}/${service}`, public: `${s.publicUrl}/${service}` }));
        connector = new Connector(service, base, { clientId, clientSecret }, config.timeoutMs);
        connectors.set(service, connector);
      }
      return connector;
    },
  };
}

/** The context's connectors; every app, job runner and CLI context that calls external services has them. */
export function integrationsOf(ctx: RequestContext): Integrations {
  if (!ctx.integrations) throw new Error('This context has no connectors to external services (createIntegrations)');
  return ctx.integrations;
}

/** A call to an external service failed: answered with the status the operation documents for it. */
export class UpstreamServiceError extends AppError {
  constructor(
    message: string,
    status: number,
    readonly upstream?: UpstreamError,
  ) {
    super(message, status, status >= 500 ? 'common.upstream_error' : status === 403 ? 'common.forbidden' : 'common.validation_error');
  }
}

/**
 * Runs a call to an external service and turns its failure into the documented status: `status` for
 * an error answer, a malformed answer or no answer (spec 002 names 400 or 500 per operation; 502 where
 * it names none), `forbidden` (default 403) when the upstream refused our credentials or token (401/403).
 */
export async function upstream<T>(call: () => Promise<T>, options: { status?: number; forbidden?: number; what?: string } = {}): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw upstreamFailed(e, options);
  }
}

export function upstreamFailed(e: unknown, { status = 502, forbidden = 403, what }: { status?: number; forbidden?: number; what?: string } = {}): unknown {
  if (!(e instanceof UpstreamError)) return e;
  const prefix = what ? `${what} failed: ` : '';
  if (e.failure === 'status' && (e.status === 401 || e.status === 403)) return new UpstreamServiceError(`${prefix}${e.message}`, forbidden, e);
  return new UpstreamServiceError(`${prefix}${e.message}`, status, e);
}
