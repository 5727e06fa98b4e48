import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OpenTelemetryActivityOutboundInterceptor, makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry';
import type { TracingConfig } from '../config/tracing';
import { CachedContextActivityInbound } from './activity-trace-context';

/*
 * The OpenTelemetry SDK, required by `./index.ts` only when tracing is on. Its packages are of the 1.x line that
 * `@temporalio/interceptors-opentelemetry` is built on (one `sdk-trace-base`); OTLP over HTTP with protobuf needs
 * no gRPC native dependencies.
 */

/** A process's tracing: the provider (registered globally) and what a worker hands Temporal's interceptors. */
export interface TracingSdk {
  readonly config: TracingConfig;
  readonly spanProcessor: SpanProcessor;
  readonly resource: Resource;
  /** Sends the spans still buffered and stops the exporter. */
  shutdown(): Promise<void>;
  /** Sends the spans still buffered. */
  flush(): Promise<void>;
}

/** Starts the SDK: a global tracer provider exporting over OTLP, W3C trace context and baggage propagation. */
export function startTracingSdk(config: TracingConfig): TracingSdk {
  const resource = new Resource({ 'service.name': config.serviceName });
  // The exporter reads OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, _HEADERS, _TIMEOUT itself, as every OTel SDK does.
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // The global provider, AsyncLocalStorage context and the tracecontext + baggage propagators.
  provider.register();
  return {
    config,
    spanProcessor,
    resource,
    shutdown: () => provider.shutdown(),
    flush: () => provider.forceFlush(),
  };
}

/**
 * Temporal's workflow interceptors, with activities scheduled without a span of their own
 * (`src/workflows/temporal-tracing-interceptors.ts`, or its build), in place of Temporal's module.
 */
const TEMPORAL_TRACING_INTERCEPTORS_PATH: string = require.resolve('../workflows/temporal-tracing-interceptors');

/** Temporal's worker-side interceptors for `sdk`, and `workflowModules` in the order they must run. */
export function workerTracingInterceptors(workflowModules: readonly string[]): WorkerInterceptors {
  return {
    workflowModules: [TEMPORAL_TRACING_INTERCEPTORS_PATH, ...workflowModules],
    activity: [
      (ctx) => ({
        inbound: new CachedContextActivityInbound(ctx),
        outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
      }),
    ],
  };
}

/** The sink that takes workflow spans out of the sandbox (not called during replay). */
export function workflowSpanSinks(sdk: TracingSdk): InjectedSinks<OpenTelemetrySinks> {
  return { exporter: makeWorkflowExporter(sdk.spanProcessor, sdk.resource) };
}
