import { z } from 'zod';
import { hostPort, parseEnvironment } from './environment';
import { ConfigError } from './config-error';

/**
 * OpenTelemetry tracing, by the standard `OTEL_*` variables. The exporter reads the rest of them itself
 * (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, timeouts, ...); this schema names the ones
 * that decide whether tracing is on and what it records.
 */
export const tracingSchema = z.object({
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url({ protocol: /^https?$/, message: 'expected an http(s) URL, for example http://localhost:4318' })
    .optional()
    .describe(
      'Where spans are sent (OTLP over HTTP); set, tracing is on, unset (without the two below) it is off and no tracing code is loaded.',
    ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .url({ protocol: /^https?$/, message: 'expected an http(s) URL, for example http://localhost:4318/v1/traces' })
    .optional()
    .describe('The full URL spans are sent to, when it is not OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces.'),
  OTEL_TRACES_EXPORTER: z
    .enum(['otlp', 'none'])
    .optional()
    .describe(
      '`none` turns tracing off whatever the endpoint; `otlp` turns it on (to http://localhost:4318 when no endpoint is set).',
    ),
  OTEL_SERVICE_NAME: z
    .string()
    .min(1)
    .optional()
    .describe('The `service.name` of the spans; unset, the process kind (agent-runner-worker, agent-runner-api).'),
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: z
    .enum(['true', 'false'], { message: 'expected true or false' })
    .default('false')
    .describe(
      '`true`: spans carry messages, answers and tool arguments and results, secrets redacted (off: prompts often hold personal data).',
    ),
});

/** Temporal's own worker metrics (task latencies, slots, polls): exported by the SDK's Rust core. */
export const metricsSchema = z.object({
  AGENT_METRICS_PROMETHEUS: hostPort
    .optional()
    .describe(
      "host:port where the worker serves Temporal's SDK metrics at `/metrics` (no authentication: it warns when bound beyond loopback).",
    ),
  AGENT_METRICS_OTLP_URL: z
    .url({ protocol: /^https?$/, message: 'expected an http(s) URL, for example http://localhost:4317' })
    .optional()
    .describe(
      "An OTLP/gRPC collector the worker pushes Temporal's SDK metrics to (instead of AGENT_METRICS_PROMETHEUS).",
    ),
});

/** Tracing as a process sets it up; undefined is off. */
export interface TracingConfig {
  /** `service.name` on every span. */
  serviceName: string;
  /** Message content on `chat` and `execute_tool` spans. */
  captureContent: boolean;
}

/**
 * Reads {@link tracingSchema}: undefined (off) unless an OTLP endpoint is set or `OTEL_TRACES_EXPORTER=otlp`, and
 * always when `OTEL_TRACES_EXPORTER=none`.
 */
export function loadTracingConfig(
  defaultServiceName: string,
  env: NodeJS.ProcessEnv = process.env,
): TracingConfig | undefined {
  const values = parseEnvironment(tracingSchema, env);
  if (values.OTEL_TRACES_EXPORTER === 'none') return undefined;
  const on =
    values.OTEL_TRACES_EXPORTER === 'otlp' ||
    values.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined ||
    values.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined;
  if (!on) return undefined;
  return {
    serviceName: values.OTEL_SERVICE_NAME ?? defaultServiceName,
    captureContent: values.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT === 'true',
  };
}

/** Where the worker's SDK metrics go; undefined: nowhere. */
export type MetricsConfig = { prometheus: { bindAddress: string } } | { otel: { url: string } };

/** Reads {@link metricsSchema}; both set is an error. */
export function loadMetricsConfig(env: NodeJS.ProcessEnv = process.env): MetricsConfig | undefined {
  const values = parseEnvironment(metricsSchema, env);
  if (values.AGENT_METRICS_PROMETHEUS !== undefined && values.AGENT_METRICS_OTLP_URL !== undefined) {
    throw new ConfigError('Set AGENT_METRICS_PROMETHEUS or AGENT_METRICS_OTLP_URL, not both.');
  }
  if (values.AGENT_METRICS_PROMETHEUS !== undefined)
    return { prometheus: { bindAddress: values.AGENT_METRICS_PROMETHEUS } };
  if (values.AGENT_METRICS_OTLP_URL !== undefined) return { otel: { url: values.AGENT_METRICS_OTLP_URL } };
  return undefined;
}
