import { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { loadTemporalConfig, type TemporalConfig } from '../config';
import { connectClient } from '../temporal/connection';
import { clientTracingInterceptor } from '../tracing/client-tracing';
import { tracingOn } from '../tracing/process-tracing';

/** Options of {@link connectAgentClient}. */
export interface ConnectAgentClientOptions {
  /**
   * The payload codec the workers encrypt with; a payload under a key the client lacks fails with `PayloadKeyError`.
   * @default none: payloads in clear
   */
  dataConverter?: DataConverter;
  /**
   * Carry the caller's active OpenTelemetry span into the runs it starts; needs a tracer provider in the process.
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
