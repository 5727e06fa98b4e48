import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { Worker, type NativeConnection } from '@temporalio/worker';
import { sseData } from '../../src/activities/sse-data';
import { buildApiServer } from '../../src/api/server';
import type { ScriptedModelServer } from '../../src/scripted-model/server';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { createBuiltinTools } from '../../src/tools/builtin';
import { createAgentWorker } from '../../src/worker';
import { benchFollowLatency } from './follow-latency';
import { latencies, now, summary, type Received } from './latency';
import { createProbeActivities, type ProbeCounters } from './probe-activities';
import type { ProbeHeartbeat, ProbeInput } from './probe-types';
import { probeDeltasQuery, probeWorkflow } from './probe-workflow';

/** What the streaming section measures with. */
export interface StreamingBenchOptions {
  client: Client;
  workerConnection: NativeConnection;
  model: ScriptedModelServer;
  /** Runs measured per transport. */
  runs: number;
  /** Tokens per answer. */
  tokens: number;
  /** The scripted model's pause before each token. */
  tokenDelayMs: number;
  log: (line: string) => void;
}

const TOKEN = 'bench-stream-token-0123456789';
const POLL_MS = 100;

/**
 * `npm run bench -- --only streaming`: the model streams a token every
 * `tokenDelayMs`; for each delta, the time from the scripted server writing
 * it to a follower receiving it, over the runner's transport (the worker's
 * delta server, read by the API's Server-Sent Events) and over two
 * candidates measured beside it (heartbeat details read by describing the
 * run; batched signals read by a query, as `@temporalio/workflow-streams`
 * does); and what each adds to the run's history.
 */
export async function benchStreaming(options: StreamingBenchOptions): Promise<void> {
  const { client, workerConnection, model, log } = options;
  const answer = Array.from({ length: options.tokens }, (_, index) => `token${index}`).join(' ');
  const script = (name: string) => model.script(name, [{ content: answer, tokenDelayMs: options.tokenDelayMs }]);
  const streamedQueue = `bench-stream-${randomUUID()}`;
  const wholeQueue = `bench-whole-${randomUUID()}`;
  const probeQueue = `bench-probe-${randomUUID()}`;
  const tools = createBuiltinTools({ workspace: os.tmpdir() });
  const settings = { baseURL: model.baseURL, apiKey: 'unused', defaultModel: 'unused' };
  const streamedWorker = await createAgentWorker({
    connection: workerConnection,
    namespace: 'default',
    taskQueue: streamedQueue,
    tools,
    model: settings,
  });
  const wholeWorker = await createAgentWorker({
    connection: workerConnection,
    namespace: 'default',
    taskQueue: wholeQueue,
    tools,
    model: { ...settings, stream: false },
  });
  const counters: ProbeCounters = { heartbeats: 0, signals: 0 };
  const probeWorker = await Worker.create({
    connection: workerConnection,
    namespace: 'default',
    taskQueue: probeQueue,
    workflowsPath: require.resolve('./probe-workflow'),
    activities: createProbeActivities(client, model.baseURL, counters),
    // Heartbeat details reach the server at most this often: the default (80% of the heartbeat timeout) would be seconds.
    maxHeartbeatThrottleInterval: `${POLL_MS} ms`,
  });
  const app = buildApiServer({ client, taskQueue: streamedQueue, auth: { token: TOKEN }, defaults: { tools: [] } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };

  const history = async (workflowId: string) => {
    const description = await client.workflow.getHandle(workflowId).describe();
    return { events: description.historyLength, bytes: description.historySize ?? 0 };
  };

  const runAgent = async (queue: string, follow: boolean) => {
    const name = `bench-stream-${randomUUID().slice(0, 8)}`;
    script(name);
    const handle = await client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: queue,
      workflowId: `bench-stream-${randomUUID()}`,
      args: [{ model: name, tools: [], message: 'stream' }],
    });
    const received: Received = new Map();
    if (follow)
      await followSse(`http://127.0.0.1:${port}/runs/${encodeURIComponent(handle.workflowId)}/events`, received);
    await handle.result();
    return { latencies: latencies(model.sentChunks(name), received), history: await history(handle.workflowId) };
  };

  const runProbe = async (transport: ProbeInput['transport']) => {
    const name = `bench-probe-${randomUUID().slice(0, 8)}`;
    script(name);
    const handle = await client.workflow.start(probeWorkflow, {
      taskQueue: probeQueue,
      workflowId: `bench-probe-${randomUUID()}`,
      args: [{ model: name, transport, batchMs: POLL_MS }],
    });
    const received: Received = new Map();
    let reads = 0;
    let done = false;
    const result = handle.result().finally(() => (done = true));
    while (!done) {
      reads += 1;
      const texts =
        transport === 'signal'
          ? (await handle.query(probeDeltasQuery)).texts
          : await heartbeatTexts(client, handle.workflowId);
      for (let index = received.size; index < texts.length; index += 1) received.set(index, now());
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    await result;
    return { latencies: latencies(model.sentChunks(name), received), history: await history(handle.workflowId), reads };
  };

  try {
    await streamedWorker.runUntil(() => wholeWorker.runUntil(() => probeWorker.runUntil(measure)));
  } finally {
    await app.close();
  }

  async function measure(): Promise<void> {
    // A warm-up run: the first workflow task and connection setup are not what is measured.
    await runAgent(streamedQueue, true);
    await benchFollowLatency({
      client,
      model,
      taskQueue: streamedQueue,
      url: `http://127.0.0.1:${port}`,
      token: TOKEN,
      runs: options.runs,
      iterations: 10,
      modelDelayMs: 300,
      log,
    });
    const side: number[] = [];
    const heartbeat: number[] = [];
    const signal: number[] = [];
    let streamedHistory = { events: 0, bytes: 0 };
    let wholeHistory = { events: 0, bytes: 0 };
    let heartbeatHistory = { events: 0, bytes: 0 };
    let signalHistory = { events: 0, bytes: 0 };
    let describes = 0;
    let queries = 0;
    for (let run = 0; run < options.runs; run += 1) {
      const streamed = await runAgent(streamedQueue, true);
      side.push(...streamed.latencies);
      streamedHistory = streamed.history;
      wholeHistory = (await runAgent(wholeQueue, false)).history;
      const byHeartbeat = await runProbe('heartbeat');
      heartbeat.push(...byHeartbeat.latencies);
      heartbeatHistory = byHeartbeat.history;
      describes += byHeartbeat.reads;
      const bySignal = await runProbe('signal');
      signal.push(...bySignal.latencies);
      signalHistory = bySignal.history;
      queries += bySignal.reads;
    }
    log('');
    log(
      `streaming: ${options.runs} runs per transport, ${options.tokens} tokens each, one every ${options.tokenDelayMs} ms; latency from the scripted server writing a token to a follower reading it`,
    );
    log(`worker's delta server -> API SSE (the runner): ${summary(side)}`);
    log(
      `  history of the run: ${streamedHistory.events} events, ${streamedHistory.bytes} bytes; the same run not streamed: ${wholeHistory.events} events, ${wholeHistory.bytes} bytes`,
    );
    log(`heartbeat details, describe every ${POLL_MS} ms (throttle ${POLL_MS} ms): ${summary(heartbeat)}`);
    log(
      `  ${(counters.heartbeats / options.runs).toFixed(0)} heartbeats asked per call (the SDK throttles what reaches the server), ${(describes / options.runs).toFixed(0)} describes per follower per call; history of the probe run: ${heartbeatHistory.events} events, ${heartbeatHistory.bytes} bytes`,
    );
    log(`signals every ${POLL_MS} ms, query every ${POLL_MS} ms (as workflow-streams): ${summary(signal)}`);
    log(
      `  ${(counters.signals / options.runs).toFixed(0)} signals per call, ${(queries / options.runs).toFixed(0)} queries per follower per call; history of the probe run: ${signalHistory.events} events, ${signalHistory.bytes} bytes (vs ${heartbeatHistory.events} events, ${heartbeatHistory.bytes} bytes without signals)`,
    );
  }
}

/** Reads the run's SSE to its end, stamping each text delta when it arrives. */
async function followSse(url: string, received: Received): Promise<void> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
  if (response.body === null) throw new Error(`the event stream answered ${response.status} without a body`);
  // Every frame's data is its event as JSON, `type` included: the text deltas are told apart by it.
  for await (const data of sseData(response.body)) {
    const event = JSON.parse(data) as { type?: unknown; index?: unknown };
    if (event.type === 'model-text-delta' && typeof event.index === 'number') received.set(event.index, now());
  }
}

/** The texts the probe's activity last heartbeat, as a follower describing the run sees them. */
async function heartbeatTexts(client: Client, workflowId: string): Promise<string[]> {
  const description = await client.workflow.getHandle(workflowId).describe();
  const payloads = description.raw.pendingActivities?.[0]?.heartbeatDetails?.payloads;
  if (!payloads?.length) return [];
  const details = await decodeFromPayloadsAtIndex<ProbeHeartbeat>(client.options.loadedDataConverter, 0, payloads);
  return details?.texts ?? [];
}
