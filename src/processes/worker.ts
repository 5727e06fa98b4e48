import { Runtime } from '@temporalio/worker';
import { ConfigError, configuredSecrets, loadWorkerConfig } from '../config';
import { isHttpServer, type McpServers } from '../config/mcp-servers';
import { metricsExposureWarning } from '../config/metrics-exposure';
import { describePayloadEncryption, loadPayloadEncryption } from '../config/payload-codec';
import { describeTemporalSource } from '../config/temporal';
import { loadMetricsConfig } from '../config/tracing';
import { createRedactor } from '../redaction';
import { VERSIONING_DEFAULTS, type AgentWorkerDeployment } from '../shared/versioning';
import { connectWorker } from '../temporal/worker-connection';
import { createBuiltinTools } from '../tools/builtin';
import { tracingForProcess } from '../tracing/process-tracing';
import { createAgentWorker } from '../worker/create-agent-worker';
import { describeModelEndpoints } from '../worker/describe-endpoints';
import { runnerLogger } from '../worker/runner-logger';

/** `npm run worker`: a worker with the built-in tools, configured from the environment. */
async function main(secrets: readonly string[]): Promise<void> {
  const { temporal, model: configured, logLevel, mcpServers, deployment } = loadWorkerConfig();
  const encryption = loadPayloadEncryption(process.env, temporal);
  // Signals are handled below, not by the SDK: Ctrl-C reaches tsx and node both and tsx relays it once more,
  // and a second SIGINT after the SDK's handler has run would kill the worker in the middle of draining.
  // A provider may echo the key in an error: no log line of the worker prints a configured secret.
  const metrics = loadMetricsConfig();
  Runtime.install({
    logger: runnerLogger(logLevel, secrets),
    shutdownSignals: [],
    // Temporal's own SDK metrics (its Rust core serves or pushes them): AGENT_METRICS_PROMETHEUS or AGENT_METRICS_OTLP_URL.
    ...(metrics === undefined ? {} : { telemetryOptions: { metrics } }),
  });
  const exposure = metricsExposureWarning(metrics);
  if (exposure !== undefined) Runtime.instance().logger.warn(exposure);
  const connection = await connectWorker(temporal);
  // Loaded only offline: the scripted model's server (and fastify) stays out of a worker with a real model.
  const served =
    configured.offline === undefined
      ? undefined
      : await (await import('../scripted-model/offline-model')).serveOfflineModel(configured);
  const model = served?.model ?? configured;
  if (served?.notice !== undefined) console.log(served.notice);
  const worker = await createAgentWorker({
    connection,
    namespace: temporal.namespace,
    taskQueue: temporal.taskQueue,
    tools: createBuiltinTools({ workspace: model.workspace }),
    model: { ...model, secrets },
    dataConverter: encryption.dataConverter,
    mcpServers,
    ...(deployment === undefined ? {} : { deployment }),
  });
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      console.log(
        `${signal}: stopping; tasks in progress finish first, runs continue on other workers or after a restart.`,
      );
      worker.shutdown();
    });
  }
  // Announced only once the handlers are in place: a Ctrl-C right after this line must already drain.
  console.log(
    `Worker polling task queue "${temporal.taskQueue}" in namespace "${temporal.namespace}" at ${temporal.address} (${describeTemporalSource(temporal)}); ` +
      `${describeModelEndpoints(model)}; workspace ${model.workspace}; ${describePayloadEncryption(encryption)}; ${describeMcpServers(mcpServers)}; ${describeDeployment(deployment)}. Ctrl-C stops it.`,
  );
  try {
    await worker.run();
  } finally {
    await served?.close();
    await connection.close();
    // The spans still buffered, among them the last runs' workflow spans.
    await tracingForProcess(undefined)?.shutdown();
  }
}

/** The MCP servers' names and transports for the start line; never their commands, URLs or credentials. */
function describeMcpServers(servers: McpServers): string {
  const names = Object.entries(servers).map(([name, server]) => `${name} (${isHttpServer(server) ? 'http' : 'stdio'})`);
  return names.length === 0 ? 'no MCP servers' : `MCP servers ${names.join(', ')}`;
}

/** The worker's deployment version and default behaviour for the start line; `unversioned` without one. */
function describeDeployment(deployment: AgentWorkerDeployment | undefined): string {
  if (deployment === undefined) return 'unversioned';
  const behaviour = deployment.defaultVersioning ?? VERSIONING_DEFAULTS.defaultVersioning;
  return `deployment ${deployment.deploymentName}, build ${deployment.buildId} (runs ${behaviour} by default)`;
}

if (require.main === module) {
  const secrets = configuredSecrets();
  main(secrets).catch((error: unknown) => {
    console.error(
      createRedactor(secrets)(ConfigError.isInstance(error) || error instanceof Error ? error.message : String(error)),
    );
    process.exit(1);
  });
}
