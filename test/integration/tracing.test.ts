import { randomBytes, randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { resolveJaeger, startJaeger, type RunningJaeger } from '../../dev/jaeger/jaeger';
import { AgentRunnerPlugin } from '../../src/worker/plugin';
import { tracingForProcess } from '../../src/tracing/process-tracing';
import { pingTool } from '../helpers/ping-tool';
import { cleanEnv, startScript, stopChild } from '../helpers/processes';
import { installQuietRuntime } from '../helpers/quiet-runtime';
import { testServerAddress } from '../helpers/test-env';
import { waitForState } from '../helpers/wait';
import { researcher } from '../fixtures/tracing-worker';
import { startWorkerProcess } from '../helpers/worker-process';

/**
 * Tracing end to end, against a real OTLP receiver: Jaeger (built from source once, cached, like the Temporal CLI)
 * on free loopback ports, a worker process and an API process with `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at it.
 * A run started over HTTP with a `traceparent` calls a tool and a nested agent; its trace, read back from Jaeger's
 * query API, is the caller's trace with the GenAI spans and Temporal's, parented as documented. Replaying the
 * run's histories with tracing on adds no span.
 */

jest.setTimeout(600_000);

interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: { refType: string; traceID: string; spanID: string }[];
  tags: { key: string; value: unknown }[];
  processID: string;
}

const SERVICE = `tracing-test-${randomUUID().slice(0, 8)}`;
/** The worker's model key: a configured secret, which the traced run's tool arguments carry (to be redacted). */
const SECRET = `sk-secret-${randomUUID()}`;
let jaeger: RunningJaeger;
let model: ScriptedModelServer;
let worker: { child: ChildProcess; output: () => string };
let tracingWorker: () => ReturnType<typeof startWorkerProcess>;
let api: { child: ChildProcess; output: () => string };
let apiUrl: string;
let connection: Connection;
let client: Client;
const taskQueue = `tracing-${randomUUID()}`;

beforeAll(async () => {
  installQuietRuntime();
  const binary = await resolveJaeger((line) => process.stderr.write(`[jaeger] ${line}\n`));
  jaeger = await startJaeger(binary);
  model = await ScriptedModelServer.start();
  const otel = {
    OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
    OTEL_SERVICE_NAME: SERVICE,
    // Spans leave the processes within 100 ms rather than the default 5 s.
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
  const common = { TEMPORAL_ADDRESS: testServerAddress(), AGENT_TASK_QUEUE: taskQueue, ...otel };
  const setup = {
    taskQueue,
    modelBaseURL: model.baseURL,
    extraEnv: { ...otel, OPENAI_API_KEY: SECRET, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' },
  };
  tracingWorker = () =>
    startWorkerProcess(setup, { script: 'test/fixtures/tracing-worker.ts', readyLine: /tracing-worker ready/ });
  [worker, api] = await Promise.all([
    tracingWorker(),
    startScript(
      'src/api/main.ts',
      cleanEnv({ ...common, AGENT_API_AUTH: 'none', AGENT_API_PORT: '0' }),
      /Agent API at http:\/\/[^\s]+/,
    ),
  ]);
  expect(worker.output()).toContain('tracing on');
  apiUrl = /Agent API at (http:\/\/[^\s]+)/.exec(api.output())![1]!;
  connection = await Connection.connect({ address: testServerAddress() });
  client = new Client({ connection });
});

afterAll(async () => {
  await Promise.all([api && stopChild(api.child, 'SIGTERM'), worker && stopChild(worker.child, 'SIGTERM')]);
  await connection?.close();
  await model?.close();
  await jaeger?.stop();
  await tracingForProcess(undefined)?.shutdown();
});

/** The trace's spans as Jaeger has them, once their number has stopped changing for a while. */
async function settledTrace(traceId: string, atLeast: number): Promise<JaegerSpan[]> {
  let last = -1;
  let stableSince = Date.now();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const response = await fetch(`${jaeger.queryUrl}/api/traces/${traceId}`);
    const spans: JaegerSpan[] = response.ok
      ? ((await response.json()) as { data: { spans: JaegerSpan[] }[] }).data.flatMap((trace) => trace.spans)
      : [];
    if (spans.length !== last) {
      last = spans.length;
      stableSince = Date.now();
    } else if (spans.length >= atLeast && Date.now() - stableSince > 2_000) {
      return spans;
    }
    if (Date.now() > deadline) throw new Error(`trace ${traceId}: ${spans.length} spans, expected at least ${atLeast}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const tag = (span: JaegerSpan, key: string) => span.tags.find((entry) => entry.key === key)?.value;
const parentOf = (span: JaegerSpan) => span.references.find((ref) => ref.refType === 'CHILD_OF')?.spanID;

describe('OpenTelemetry traces with the GenAI semantic conventions', () => {
  test('a run started over HTTP with a traceparent: one trace, GenAI and Temporal spans, parented; a replay adds none', async () => {
    const scriptName = `traced-${randomUUID().slice(0, 8)}`;
    model.script(scriptName, [
      {
        toolCalls: [
          { name: 'ping', arguments: { host: SECRET } },
          { name: 'researcher', arguments: { task: 'Is example.org up?' } },
        ],
      },
      { content: 'The child says: up.' },
      // The planner's last call reports cached and reasoning tokens, as a provider with caching and reasoning does.
      { content: 'example.org is up.', cachedTokens: 8, reasoningTokens: 7 },
    ]);
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const started = await fetch(`${apiUrl}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-${callerSpanId}-01` },
      body: JSON.stringify({
        input: { name: 'planner', model: scriptName, tools: ['ping', 'researcher'], message: 'Is example.org up?' },
      }),
    });
    expect(started.status).toBe(202);
    const runId = ((await started.json()) as { run_id: string }).run_id;
    const result = (await client.workflow.getHandle(runId).result()) as { response: string };
    expect(result.response).toBe('example.org is up.');

    const spans = await settledTrace(traceId, 12);
    // One trace: the caller's, every span in it.
    expect(new Set(spans.map((span) => span.traceID))).toEqual(new Set([traceId]));
    const named = (name: string) => spans.filter((span) => span.operationName === name);
    const byId = new Map(spans.map((span) => [span.spanID, span]));
    const ancestors = (span: JaegerSpan): JaegerSpan[] => {
      const parent = byId.get(parentOf(span) ?? '');
      return parent === undefined ? [] : [parent, ...ancestors(parent)];
    };

    // Temporal's spans: the client's start is the child of the caller's span.
    const [startWorkflow] = named('StartWorkflow:agentWorkflow');
    expect(parentOf(startWorkflow!)).toBe(callerSpanId);
    const runWorkflows = named('RunWorkflow:agentWorkflow');
    expect(runWorkflows).toHaveLength(2);

    // invoke_agent: the run's, a child of its RunWorkflow span; the nested agent's, under the parent's.
    const [planner] = named('invoke_agent planner');
    const [child] = named('invoke_agent researcher');
    expect(planner).toBeDefined();
    expect(child).toBeDefined();
    expect(byId.get(parentOf(planner!)!)!.operationName).toBe('RunWorkflow:agentWorkflow');
    expect(ancestors(planner!).map((span) => span.spanID)).toContain(startWorkflow!.spanID);
    expect(ancestors(child!).map((span) => span.operationName)).toEqual(
      expect.arrayContaining(['RunWorkflow:agentWorkflow', 'StartChildWorkflow:agentWorkflow', 'invoke_agent planner']),
    );
    expect(tag(planner!, 'gen_ai.operation.name')).toBe('invoke_agent');
    expect(tag(planner!, 'gen_ai.agent.name')).toBe('planner');
    expect(tag(planner!, 'gen_ai.conversation.id')).toBe(runId);
    const childId = String(tag(child!, 'gen_ai.agent.id'));
    expect(childId.startsWith(runId)).toBe(true);
    expect(tag(child!, 'gen_ai.conversation.id')).toBe(childId);
    expect(tag(child!, 'gen_ai.agent.name')).toBe('researcher');

    // chat: one per model call, each under its run's invoke_agent, through the worker's activity span only.
    const chats = named(`chat ${scriptName}`);
    expect(chats).toHaveLength(3);
    for (const chat of chats) {
      const chain = ancestors(chat).map((span) => span.operationName);
      expect(chain.slice(0, 2)).toEqual(['RunActivity:callModel', chain[1]]);
      expect(chain[1]).toMatch(/^invoke_agent (planner|researcher)$/);
      expect(tag(chat, 'gen_ai.operation.name')).toBe('chat');
      expect(tag(chat, 'gen_ai.request.model')).toBe(scriptName);
      expect(tag(chat, 'gen_ai.response.model')).toBe(scriptName);
      expect(Number(tag(chat, 'gen_ai.usage.input_tokens'))).toBeGreaterThan(0);
      expect(Number(tag(chat, 'gen_ai.usage.output_tokens'))).toBeGreaterThan(0);
      expect(JSON.stringify(tag(chat, 'gen_ai.response.finish_reasons'))).toMatch(/tool_calls|stop/);
      // Content capture is on for this worker: what was sent and answered, as JSON.
      expect(JSON.parse(String(tag(chat, 'gen_ai.input.messages')))).toEqual(expect.any(Array));
      expect(JSON.parse(String(tag(chat, 'gen_ai.output.messages')))[0].role).toBe('assistant');
    }
    // The token details: on the one call whose provider reported them, absent (not zero) on the others.
    const detailed = chats.filter((chat) => tag(chat, 'gen_ai.usage.cache_read.input_tokens') !== undefined);
    expect(detailed).toHaveLength(1);
    expect(Number(tag(detailed[0]!, 'gen_ai.usage.cache_read.input_tokens'))).toBe(8);
    expect(Number(tag(detailed[0]!, 'gen_ai.usage.reasoning.output_tokens'))).toBe(7);
    expect(chats.filter((chat) => tag(chat, 'gen_ai.usage.reasoning.output_tokens') !== undefined)).toHaveLength(1);
    const plannerChats = chats.filter((chat) => ancestors(chat)[1]!.spanID === planner!.spanID);
    expect(plannerChats).toHaveLength(2);
    expect(plannerChats.map((chat) => tag(chat, 'gen_ai.conversation.id'))).toEqual([runId, runId]);
    const childChats = chats.filter((chat) => ancestors(chat)[1]!.spanID === child!.spanID);
    expect(childChats.map((chat) => tag(chat, 'gen_ai.conversation.id'))).toEqual([
      tag(child!, 'gen_ai.conversation.id'),
    ]);

    // execute_tool: the ping call, with the runner's call id, under the planner.
    const [ping] = named('execute_tool ping');
    expect(tag(ping!, 'gen_ai.tool.name')).toBe('ping');
    expect(tag(ping!, 'gen_ai.tool.call.id')).toMatch(/\S/);
    expect(
      ancestors(ping!)
        .map((span) => span.operationName)
        .slice(0, 2),
    ).toEqual(['RunActivity:executeTool', 'invoke_agent planner']);

    // Captured content is redacted as logs are: the secret in the tool's arguments shows nowhere in the trace.
    expect(tag(ping!, 'gen_ai.tool.call.arguments')).toBe('{"host":"[redacted]"}');
    expect(tag(ping!, 'gen_ai.tool.call.result')).toBe('pong [redacted]');
    expect(plannerChats.some((chat) => String(tag(chat, 'gen_ai.output.messages')).includes('[redacted]'))).toBe(true);
    expect(plannerChats.some((chat) => String(tag(chat, 'gen_ai.input.messages')).includes('[redacted]'))).toBe(true);
    expect(JSON.stringify(spans)).not.toContain(SECRET);

    // A replay on another worker (here: a replay worker in this process, tracing on, exporting to the same
    // Jaeger) rebuilds the spans but exports none: the trace keeps its spans, the service its traces.
    const servicesBefore = await traceCount();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = jaeger.otlpEndpoint;
    const plugin = new AgentRunnerPlugin({
      tools: [pingTool, researcher],
      model: { apiKey: 'unused', defaultModel: 'unused' },
      streamListener: false,
      tracing: { serviceName: SERVICE, captureContent: false },
    });
    expect(plugin.tracingOn).toBe(true);
    for (const workflowId of [runId, childId]) {
      const history = await client.workflow.getHandle(workflowId).fetchHistory();
      await Worker.runReplayHistory({ plugins: [plugin] }, history, workflowId);
    }
    await tracingForProcess(undefined)!.flush();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await settledTrace(traceId, spans.length)).toHaveLength(spans.length);
    expect(await traceCount()).toBe(servicesBefore);
  });
});

describe('a conversation turn', () => {
  test("POST /chat with a traceparent: the turn's spans name the conversation's context_id", async () => {
    const scriptName = `traced-chat-${randomUUID().slice(0, 8)}`;
    model.script(scriptName, [
      { toolCalls: [{ name: 'ping', arguments: { host: 'example.org' } }] },
      { content: 'Up.' },
    ]);
    const contextId = `ctx-${randomUUID().slice(0, 8)}`;
    const traceId = randomBytes(16).toString('hex');
    const answered = await fetch(`${apiUrl}/chat`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
      },
      body: JSON.stringify({
        context_id: contextId,
        message: 'Is example.org up?',
        model: scriptName,
        tools: ['ping'],
      }),
    });
    expect(answered.status).toBe(200);
    // The turn's run has ended; its workflow spans are exported then. (The conversation goes on: its own spans later.)
    const spans = await settledTrace(traceId, 6);
    const [turn] = spans.filter((span) => span.operationName === 'invoke_agent agent');
    expect(turn).toBeDefined();
    expect(tag(turn!, 'gen_ai.conversation.id')).toBe(contextId);
    const chats = spans.filter((span) => span.operationName === `chat ${scriptName}`);
    expect(chats).toHaveLength(2);
    expect(chats.map((chat) => tag(chat, 'gen_ai.conversation.id'))).toEqual([contextId, contextId]);
    const [ping] = spans.filter((span) => span.operationName === 'execute_tool ping');
    expect(tag(ping!, 'gen_ai.conversation.id')).toBe(contextId);
  });
});

describe('a run that moves to another worker mid-way', () => {
  test('the second worker replays the run and exports each span once', async () => {
    const scriptName = `traced-move-${randomUUID().slice(0, 8)}`;
    model.script(scriptName, [
      { toolCalls: [{ name: 'ping', arguments: { host: 'example.org' } }] },
      { content: 'Up.' },
    ]);
    const traceId = randomBytes(16).toString('hex');
    const started = await fetch(`${apiUrl}/runs`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
      },
      body: JSON.stringify({
        input: { model: scriptName, tools: ['ping'], message: 'Is example.org up?', approval: { tools: ['ping'] } },
      }),
    });
    const runId = ((await started.json()) as { run_id: string }).run_id;
    const handle = client.workflow.getHandle(runId);
    // The run waits for a person on the first worker; that worker stops; another one takes the run on.
    const waiting = await waitForState(handle, (state) => state.pendingApprovals.length > 0);
    await stopChild(worker.child, 'SIGTERM');
    worker = await tracingWorker();
    const approved = await fetch(`${apiUrl}/runs/${encodeURIComponent(runId)}/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ call_id: waiting.pendingApprovals[0]!.callId }),
    });
    expect(approved.status).toBe(200);
    expect(((await handle.result()) as { response: string }).response).toBe('Up.');

    const spans = await settledTrace(traceId, 8);
    const count = (name: string) => spans.filter((span) => span.operationName === name).length;
    expect(count('RunWorkflow:agentWorkflow')).toBe(1);
    expect(count('invoke_agent agent')).toBe(1);
    expect(count('RunActivity:callModel')).toBe(2);
    expect(count('StartActivity:callModel')).toBe(0);
    expect(count(`chat ${scriptName}`)).toBe(2);
    expect(count('execute_tool ping')).toBe(1);
    expect(new Set(spans.map((span) => span.spanID)).size).toBe(spans.length);
  });
});

/** How many traces Jaeger holds for the test's service. */
async function traceCount(): Promise<number> {
  const response = await fetch(`${jaeger.queryUrl}/api/traces?service=${SERVICE}&limit=1000&lookback=1h`);
  return ((await response.json()) as { data: unknown[] }).data.length;
}
