import { Client } from '@temporalio/client';
import { clientTracingInterceptor } from '../tracing/client-tracing';
import { tracingForProcess, tracingOn } from '../tracing/process-tracing';
import { Runtime } from '@temporalio/worker';
import { closeApi, describeAuth, listen, untilSignal } from '../api/lifecycle';
import { loadApiConfig } from '../config/api';
import { loadModelStreamFollowerCa } from '../config/model-stream';
import { describePayloadEncryption, loadPayloadEncryption } from '../config/payload-codec';
import { buildApiServer } from '../api/server';
import { ConfigError, configuredSecrets, loadLogLevel, loadModelConfig, loadTemporalConfig } from '../config';
import { loadLocalRunConfig, loadLocalServerConfig } from '../config/local-server';
import { connectToLocalServer, ensureLocalServer } from '../dev-server/local-server';
import { createBuiltinTools } from '../tools/builtin';
import { createAgentWorker } from '../worker';
import { describeModelEndpoints } from '../worker/describe-endpoints';
import { loadMcpServers } from '../config/mcp';
import { runnerLogger } from '../worker/runner-logger';
import { serveOfflineModel } from '../scripted-model/offline-model';

/**
 * `npm start`: everything on one machine — a Temporal dev server (started in
 * the background unless `TEMPORAL_ADDRESS` names one), a worker with the
 * built-in tools, and the HTTP API in front of them.
 */
async function main(): Promise<number> {
  const say = (line: string) => console.log(line);
  // Configuration first: a missing token or model should not cost a server start.
  const api = loadApiConfig();
  loadModelStreamFollowerCa(); // checked at start, as `npm run api` does
  const configured = loadModelConfig();
  const mcpServers = loadMcpServers();
  const logLevel = loadLogLevel();
  const localServer = loadLocalServerConfig();
  const localRun = loadLocalRunConfig();
  // A named server's namespace comes from its profile too (TEMPORAL_NAMESPACE still wins).
  const namespace = localServer.temporal?.namespace ?? localRun.namespace;
  const taskQueue = localRun.taskQueue;
  const encryption = loadPayloadEncryption(
    process.env,
    localServer.temporal ?? loadTemporalConfig(process.env, { readDefaultFile: false }),
  );
  const secrets = configuredSecrets();
  const logger = runnerLogger(logLevel === 'INFO' ? 'WARN' : logLevel, secrets);
  Runtime.install({ logger, shutdownSignals: [] });
  const stop = untilSignal();

  const served = await serveOfflineModel(configured);
  const model = served.model;
  if (served.notice !== undefined) say(served.notice);
  const server = await ensureLocalServer(say, localServer);
  const { client, clientConnection, workerConnection } = await connectToLocalServer(
    server,
    namespace,
    say,
    encryption.dataConverter,
  );
  const worker = await createAgentWorker({
    connection: workerConnection,
    namespace,
    taskQueue,
    tools: createBuiltinTools({ workspace: model.workspace }),
    model: { ...model, secrets },
    dataConverter: encryption.dataConverter,
    mcpServers,
  });
  const workerRun = worker.run();
  // The worker's plugin turned tracing on when OTEL_* says so: the API then starts runs under a request's traceparent.
  const traced = tracingOn();
  const app = buildApiServer({
    client: traced
      ? new Client({
          connection: clientConnection,
          namespace,
          interceptors: { workflow: [clientTracingInterceptor()] },
        })
      : client,
    traceContext: traced,
    taskQueue,
    auth: api.auth,
    defaults: api.defaults,
    ...(api.allowedTools === undefined ? {} : { allowedTools: api.allowedTools }),
    ...(api.allowedModels === undefined ? {} : { allowedModels: api.allowedModels }),
    bodyLimit: api.bodyLimit,
    ...(api.uiApprovalSecret === undefined ? {} : { uiApprovalSecret: api.uiApprovalSecret }),
    logger: { level: logLevel.toLowerCase() },
    console: server.uiUrl ? { temporalUiUrl: server.uiUrl } : {},
  });
  const url = await listen(app, api);
  say(`Temporal: ${server.address} (${server.description})${server.uiUrl ? `; web UI ${server.uiUrl}` : ''}.`);
  say(
    `Worker: task queue "${taskQueue}", ${describeModelEndpoints(model)}, tools ${api.defaults.tools.join(', ')} by default; ${describePayloadEncryption(encryption)}.`,
  );
  say(
    `Agent API at ${url}; its console at ${url}/console/; ${describeAuth(api)}. Ctrl-C stops the API and the worker.`,
  );
  // Said again last, where a reader of the start lines looks: the answers are not a model's.
  if (served.notice !== undefined) say(served.notice);

  // Ctrl-C, or a worker that stopped on its own (a fatal error): either way the API closes properly first.
  const workerStopped = workerRun.then(
    () => ({ failed: false, why: 'the worker stopped' }),
    (error: unknown) => ({
      failed: true,
      why: `the worker failed: ${error instanceof Error ? error.message : String(error)}`,
    }),
  );
  const ending = await Promise.race([
    stop.then((signal) => ({ failed: false, why: `${signal} received` })),
    workerStopped,
  ]);
  say(`Stopping: ${ending.why}.`);
  await closeApi(app, say);
  if (worker.getState() === 'RUNNING') worker.shutdown();
  await workerStopped;
  await clientConnection.close();
  await workerConnection.close();
  await tracingForProcess(undefined)?.shutdown();
  await served.close();
  if (server.stop !== undefined) await server.stop();
  else if (localServer.address === undefined)
    say('The dev server keeps running with its runs; `npm run server:stop` stops it.');
  return ending.failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(ConfigError.isInstance(error) || error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
