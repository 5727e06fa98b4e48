import { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { loadTemporalConfig, type TemporalConfig } from '../config';
import { connectClient } from '../temporal/connection';
import { clientTracingInterceptor } from '../tracing/client-tracing';
import { tracingOn } from '../tracing/process-tracing';

/** Options of {@link connectAgentClient}. */
export interface ConnectAgentClientOptions {
  /**
   * The client's data converter: the payload codec the workers encrypt with (`payloadCodecDataConverter(keys)`, or
   * one of your own), so the client writes inputs, signals and updates encrypted and reads results, queries and
   * events in clear. A run whose payloads name a key the client does not hold fails to read with a
   * `PayloadKeyError` naming the key id.
   * @default none: payloads in clear
   */
  dataConverter?: DataConverter;
  /**
   * Start runs under the caller's active OpenTelemetry span and carry the trace context into them (Temporal's
   * OpenTelemetry client interceptor), so a run's trace continues the caller's. Needs an OpenTelemetry tracer
   * provider registered in the process (the caller's own, or the runner's when `OTEL_*` tracing is on).
   * @default true when this process traces (`OTEL_EXPORTER_OTLP_ENDPOINT` set), else false
   */
  tracing?: boolean;
}

/** A client for the server in `TEMPORAL_ADDRESS` (or `config`). */
export async function connectAgentClient(
  config: TemporalConfig = loadTemporalConfig(),
  options: ConnectAgentClientOptions = {},
): Promise<Client> {
  const connection = await connectClient(config);
  const tracing = options.tracing ?? tracingOn();
  return new Client({
    connection,
    namespace: config.namespace,
    ...(options.dataConverter === undefined ? {} : { dataConverter: options.dataConverter }),
    ...(tracing ? { interceptors: { workflow: [clientTracingInterceptor()] } } : {}),
  });
}
