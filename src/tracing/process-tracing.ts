import type * as SdkModule from './sdk';
import { ConfigError } from '../config/config-error';
import type { TracingConfig } from '../config/tracing';
import type { TracingSdk } from './sdk';

/**
 * Tracing is process-wide (OpenTelemetry's tracer provider and context manager are globals): started once, by the
 * first worker plugin or API server that finds it configured, and shared by every worker in the process.
 */
let started: TracingSdk | undefined;

/** Starts tracing for this process with `config` (once; later calls get the first one's), or returns undefined when off. */
export function tracingForProcess(config: TracingConfig | undefined): TracingSdk | undefined {
  if (config === undefined) return started;
  if (started === undefined) {
    // Loaded here and only here: with tracing off no OpenTelemetry SDK module is loaded at all.
    const sdk = loadSdk();
    started = sdk.startTracingSdk(config);
    captureContent = config.captureContent;
  }
  return started;
}

/** Whether this process traces; the GenAI spans cost one check when it does not. */
export function tracingOn(): boolean {
  return started !== undefined;
}

let captureContent = false;

/** Whether spans carry message content (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`). */
export function capturesContent(): boolean {
  return captureContent;
}

/** The packages tracing needs beyond `@opentelemetry/api`: optional peer dependencies of the package. */
const TRACING_PACKAGES = [
  '@temporalio/interceptors-opentelemetry',
  '@opentelemetry/sdk-trace-node',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/exporter-trace-otlp-proto',
  '@opentelemetry/resources',
];

/** The SDK module; a clear error when a package it needs (an optional peer dependency) is not installed. */
function loadSdk(): typeof SdkModule {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('./sdk') as typeof SdkModule;
  } catch (error) {
    const missing = TRACING_PACKAGES.find((name) => String(error).includes(`'${name}'`));
    if ((error as { code?: unknown }).code === 'MODULE_NOT_FOUND' && missing !== undefined)
      throw new ConfigError(
        `Tracing is configured (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER=otlp) but ${missing} is not installed. ` +
          `Install the tracing packages (docs/guide/tracing.md): npm install ${TRACING_PACKAGES.join(' ')} ` +
          '(@temporalio/interceptors-opentelemetry at your @temporalio/worker version); or unset those variables.',
      );
    throw error;
  }
}
