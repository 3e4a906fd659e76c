import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { getOperationAST } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';

/**
 * The span of each executed GraphQL operation, when traces are on (OTEL_EXPORTER_OTLP_ENDPOINT,
 * src/observability/tracing.mjs). The official GraphQL instrumentation traces graphql-js's parse
 * and validate, but yoga executes through @graphql-tools/executor, which it does not see: this
 * span is the execution, named `query WhoAmI` (the operation type and name, as OpenTelemetry's
 * GraphQL conventions name it), a child of the request's HTTP span and the parent of the database
 * queries its resolvers make; an error status when the result has errors. Not installed when
 * traces are off.
 */
export function graphqlTracing(): Plugin {
  const tracer = trace.getTracer('regnskap-api');
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const operation = getOperationAST(args.document, args.operationName ?? undefined);
      const type = operation?.operation ?? 'query';
      const name = operation?.name?.value;
      const span = tracer.startSpan(name ? `${type} ${name}` : type, {
        attributes: { 'graphql.operation.type': type, ...(name ? { 'graphql.operation.name': name } : {}) },
      });
      const active = trace.setSpan(context.active(), span);
      setExecuteFn((a) => context.with(active, () => executeFn(a)));
      return {
        onExecuteDone({ result }) {
          const errors = isAsyncIterable(result) ? undefined : result.errors;
          if (errors?.length) span.setStatus({ code: SpanStatusCode.ERROR, message: errors[0]!.message });
          span.end();
        },
      };
    },
  };
}
