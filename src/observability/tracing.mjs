// OpenTelemetry traces, started by src/start.mjs before the server's code is loaded, and only when
// OTEL_EXPORTER_OTLP_ENDPOINT is set: otherwise none of this (nor the SDK) is ever imported, so
// tracing off costs nothing. The official Node SDK with the HTTP, Express, GraphQL and pg
// instrumentations exports each request's spans over OTLP/HTTP (JSON) to
// $OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); the SDK's other
// OTEL_* variables (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER, OTEL_BSP_*) apply.
//
// The instrumentations patch packages as Node loads them, which a bundle defeats: express, graphql
// and pg are inside dist/server.mjs. So a traced start runs dist/server-traced.mjs, the same program
// bundled with those three left as packages (src/bundle.mjs), and registers import-in-the-middle's
// loader for the modules the instrumentations hook (and only those) before importing it.
import { register } from 'node:module';
import { createAddHookMessageChannel } from 'import-in-the-middle';

const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);

const [{ NodeSDK }, { OTLPTraceExporter }, { HttpInstrumentation }, { ExpressInstrumentation }, { GraphQLInstrumentation }, { PgInstrumentation }] =
  await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-express'),
    import('@opentelemetry/instrumentation-graphql'),
    import('@opentelemetry/instrumentation-pg'),
  ]);

/** Paths that are probes, not requests: no trace for them. */
const UNTRACED = /^\/(health(\/live|\/ready)?|metrics)(\?|$)/;

const sdk = new NodeSDK({
  serviceName: process.env.OTEL_SERVICE_NAME ?? 'regnskap-api',
  traceExporter: new OTLPTraceExporter(),
  instrumentations: [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => UNTRACED.test(req.url ?? ''),
      // the request's id (x-request-id, the error envelope's request_id, the logs' requestId) and the
      // operation table's name of what it called (as /metrics counts it) on the request's span
      applyCustomAttributesOnSpan: (span, _request, response) => {
        if (!('getHeader' in response)) return; // an outgoing request's span
        const id = response.getHeader('x-request-id');
        if (id) span.setAttribute('request.id', String(id));
        const operation = /** @type {{ locals?: { operation?: string } }} */ (response).locals?.operation;
        if (operation) span.setAttribute('operation', operation);
      },
    }),
    // routers and handlers, not each of the ~20 middleware layers every request passes
    new ExpressInstrumentation({ ignoreLayersType: ['middleware'] }),
    new GraphQLInstrumentation({ mergeItems: true, ignoreTrivialResolveSpans: true }),
    new PgInstrumentation(),
  ],
});
sdk.start();
await waitForAllMessagesAcknowledged();

/** Flushes the spans still buffered; the server calls it on shutdown (through globalThis, as this file is not part of its bundle). */
globalThis.__otelShutdown = () => sdk.shutdown();
