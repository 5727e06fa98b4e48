import { connectAgentClient } from '../client/connect-agent-client';
import { ConfigError, loadLogLevel, loadTemporalConfig } from '../config';
import { loadApiConfig } from '../config/api';
import { loadModelStreamFollowerCa } from '../config/model-stream';
import { describeTemporalSource } from '../config/temporal';
import { describePayloadEncryption, loadPayloadEncryption } from '../config/payload-codec';
import { closeApi, describeAuth, listen, untilSignal } from './lifecycle';
import { buildApiServer } from './server';
import { loadTracingConfig } from '../config/tracing';
import { tracingForProcess } from '../tracing/process-tracing';

/** The `service.name` of the API's spans when `OTEL_SERVICE_NAME` is unset. */
const API_SERVICE_NAME = 'agent-runner-api';

/**
 * `npm run api`: the HTTP API alone, for a deployment whose workers run
 * elsewhere (`npm run worker`). `npm start` runs it together with a local
 * dev server and worker.
 */
async function main(): Promise<void> {
  const api = loadApiConfig();
  // Checked at start; each event stream reads it again (so a renewed file is picked up) when it follows deltas.
  loadModelStreamFollowerCa();
  const temporal = loadTemporalConfig();
  const logLevel = loadLogLevel().toLowerCase();
  const tracing = tracingForProcess(loadTracingConfig(API_SERVICE_NAME));
  const encryption = loadPayloadEncryption(process.env, temporal);
  const client = await connectAgentClient(temporal, { dataConverter: encryption.dataConverter });
  const app = buildApiServer({
    client,
    taskQueue: temporal.taskQueue,
    auth: api.auth,
    defaults: api.defaults,
    ...(api.allowedTools === undefined ? {} : { allowedTools: api.allowedTools }),
    ...(api.allowedModels === undefined ? {} : { allowedModels: api.allowedModels }),
    bodyLimit: api.bodyLimit,
    ...(api.uiApprovalSecret === undefined ? {} : { uiApprovalSecret: api.uiApprovalSecret }),
    // With keys of its own the API serves Temporal's codec protocol too, to principals with payloads:decode.
    ...(encryption.keyIds.length > 0 ? { codec: encryption.dataConverter.payloadCodecs![0]! } : {}),
    logger: { level: logLevel },
    traceContext: tracing !== undefined,
    console: {},
  });
  const stop = untilSignal();
  const url = await listen(app, api);
  console.log(
    `Agent API at ${url} (Temporal ${temporal.address}, ${describeTemporalSource(temporal)}, namespace "${temporal.namespace}", task queue "${temporal.taskQueue}"); its console at ${url}/console/; ${describeAuth(api)}; ${describePayloadEncryption(encryption)}. Ctrl-C stops it.`,
  );
  await stop;
  await closeApi(app, (line) => console.log(line));
  await client.connection.close();
  await tracing?.shutdown();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(ConfigError.isInstance(error) || error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
