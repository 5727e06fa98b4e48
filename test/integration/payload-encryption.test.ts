import { randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { getAgentResult, getAgentState, getAgentTranscript } from '../../src/client';
import { AgentRunFailedError } from '../../src/client/agent-run-failed-error';
import { PayloadKeyError } from '../../src/codec/payload-key-error';
import type { CodecKey } from '../../src/codec/codec-keys';
import { payloadCodecDataConverter } from '../../src/codec/data-converter';
import { eventsQuery } from '../../src/workflow-contract/definitions';
import { replayAgentHistories } from '../../src/testing/replay-histories';
import { defineTool } from '../../src/tools/define-tool';
import { TEST_TOKEN, TestApi, readEventStream } from '../helpers/api';
import { type Finished } from '../helpers/processes';
import { runAgentRunner } from '../helpers/cli-process';
import { rawHistory } from '../helpers/raw-history';
import { TestEnv } from '../helpers/test-env';

/*
 * A run on a worker and a client with the payload codec: the history the server keeps, read with the `temporal`
 * CLI and no key, holds none of the run's text, while the run, its queries, the HTTP API, the `agent-runner` CLI
 * and the event stream show it as before.
 */

const k1: CodecKey = { id: 'k1', key: randomBytes(32) };
const KEYS_VARIABLE = `${k1.id}=${k1.key.toString('base64')}`;

// Distinctive texts, each of which must stay out of the raw history.
const PROMPT = 'prompt-zebra-quartz-7731: which harbour holds the blue ferry?';
const INSTRUCTIONS = 'instructions-osprey-5512: answer in one line.';
const ARGUMENT = 'argument-walrus-9157';
const RESULT = 'result-heron-4420: the blue ferry docks at pier nine';
const ANSWER = 'answer-lantern-2086: pier nine';
const PROVIDER_TEXT = 'provider-echo-marmot-3391 quoting the request';
const TEXTS = [PROMPT, INSTRUCTIONS, ARGUMENT, RESULT, ANSWER];

const lookupTool = defineTool({
  name: 'lookup',
  description: 'Looks a topic up.',
  parameters: z.object({ topic: z.string() }),
  execute: () => RESULT,
});

let env: TestEnv;
let api: TestApi;
beforeAll(async () => {
  env = await TestEnv.create({ extraTools: [lookupTool], dataConverter: payloadCodecDataConverter([k1]) });
  api = await TestApi.start(env);
});
afterAll(async () => {
  await api.close();
  await env.close();
});

const auth = { authorization: `Bearer ${TEST_TOKEN}` };

/** `agent-runner` as a real process, pointed at the suite's server; with the codec keys unless `keys` is ''. */
function cli(args: string[], keys = KEYS_VARIABLE): Promise<Finished> {
  return runAgentRunner(env.taskQueue, args, keys === '' ? {} : { AGENT_CODEC_KEYS: keys });
}

/** Starts a run over HTTP with a lookup tool call, its result and an answer; answers its id. */
async function startLookupRun(): Promise<string> {
  const model = env.scenario([
    { content: 'Looking.', toolCalls: [{ name: 'lookup', arguments: { topic: ARGUMENT }, id: 'call_lookup' }] },
    { content: ANSWER },
  ]);
  const started = await api.post('/runs', {
    input: { model, tools: ['lookup'], message: PROMPT, instructions: INSTRUCTIONS },
    run_id: `encrypted-${randomUUID()}`,
  });
  expect(started.status).toBe(202);
  return started.body.run_id as string;
}

describe('payload encryption', () => {
  let runId: string;

  test('a run with a tool call works as before over the API, its event stream and the client', async () => {
    runId = await startLookupRun();
    const stream = await readEventStream(`${api.url}/runs/${encodeURIComponent(runId)}/events`, auth);
    const events = stream.events.filter((event) => event.id !== undefined);
    expect(events.find((event) => event.event === 'tool-call-start')?.data).toMatchObject({
      toolName: 'lookup',
      arguments: { topic: ARGUMENT },
    });
    expect(events.find((event) => event.event === 'tool-call-end')?.data).toMatchObject({ output: RESULT });
    expect(stream.events.at(-1)).toMatchObject({
      event: 'end',
      data: { run_id: runId, outcome: 'completed', result: { response: ANSWER } },
    });

    const result = await api.get(`/runs/${encodeURIComponent(runId)}/result`);
    expect(result.body).toMatchObject({ outcome: 'completed', result: { response: ANSWER } });
    const messages = await api.get(`/runs/${encodeURIComponent(runId)}/messages`);
    expect(JSON.stringify(messages.body)).toContain(PROMPT);
    expect(JSON.stringify(messages.body)).toContain(RESULT);

    expect((await getAgentResult(env.client, runId)).response).toBe(ANSWER);
    expect(await getAgentState(env.client, runId)).toMatchObject({ status: 'completed', iteration: 2 });
    const transcript = await getAgentTranscript(env.client, runId);
    expect(transcript.messages.map((message) => message.content)).toEqual(
      expect.arrayContaining([PROMPT, RESULT, ANSWER]),
    );
    const { events: logged } = await env.client.workflow.getHandle(runId).query(eventsQuery, { after: 0 });
    expect(logged.find((event) => event.type === 'tool-call-end')).toMatchObject({ output: RESULT });
  });

  test('the agent-runner CLI with the keys reads it; without them it says which key it lacks', async () => {
    const status = await cli(['status', runId, '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ status: 'completed' });
    const messages = await cli(['messages', runId]);
    expect(messages.code).toBe(0);
    expect(messages.stdout).toContain(PROMPT);
    expect(messages.stdout).toContain(ANSWER);

    const keyless = await cli(['status', runId], '');
    expect(keyless.code).not.toBe(0);
    expect(keyless.stderr).toMatch(/encrypted with key "k1", which this process does not hold/);
    expect(keyless.stderr).toContain('AGENT_CODEC_KEYS');
  });

  test('a run Temporal terminated, read without the key, names the key and logs no replay failure', async () => {
    const model = env.scenario([{ content: 'Slow.', delayMs: 60_000 }]);
    const started = await api.post('/runs', {
      input: { model, tools: ['lookup'], message: PROMPT },
      run_id: `encrypted-terminated-${randomUUID()}`,
    });
    const terminatedId = started.body.run_id as string;
    await env.client.workflow.getHandle(terminatedId).terminate('an operator stopped it');
    const keyless = await cli(['status', terminatedId], '');
    expect(keyless.code).not.toBe(0);
    expect(keyless.stderr).toMatch(/encrypted with key "k1", which this process does not hold/);
    expect(keyless.stderr).not.toMatch(/Failed to process|Workflow Activation/);
  });

  test('an API without the key answers payload_key_missing naming the key id, in the answer and the event stream', async () => {
    const keylessApi = await TestApi.start(env, { client: env.clientWith(payloadCodecDataConverter([])) });
    try {
      const state = await keylessApi.get(`/runs/${encodeURIComponent(runId)}`);
      expect(state.status).toBe(500);
      expect(state.body.error).toMatchObject({ code: 'payload_key_missing', details: { key_id: 'k1' } });
      expect(state.body.error.message).toMatch(/encrypted with key "k1"/);
      const result = await keylessApi.get(`/runs/${encodeURIComponent(runId)}/result`);
      expect(result.body.error).toMatchObject({ code: 'payload_key_missing' });
      const stream = await readEventStream(`${keylessApi.url}/runs/${encodeURIComponent(runId)}/events`, auth);
      expect(stream.events.at(-1)).toMatchObject({ event: 'error', data: { code: 'payload_key_missing' } });
      expect(JSON.stringify(stream.events)).not.toContain(PROMPT);
    } finally {
      await keylessApi.close();
    }
  });

  test('a client without the key gets PayloadKeyError naming the key id, not the text', async () => {
    const keyless = env.clientWith(payloadCodecDataConverter([]));
    const refusal = await getAgentResult(keyless, runId).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(PayloadKeyError);
    expect(refusal).toMatchObject({ keyId: 'k1' });
    const other = env.clientWith(payloadCodecDataConverter([{ id: 'k9', key: randomBytes(32) }]));
    const wrong = await getAgentState(other, runId).catch((error: unknown) => error);
    expect(String(wrong)).toMatch(/key "k1".*it holds "k9"/);
  });

  test('the raw history holds none of the prompt, instructions, arguments, result or answer', async () => {
    const history = await rawHistory(runId);
    expect(history.holding(TEXTS)).toEqual([]);
    // The reading finds what is there in clear, as text (a search attribute's value) and in base64 (metadata).
    expect(history.holding(['completed', 'binary/encrypted'])).toEqual(['completed', 'binary/encrypted']);
    // Every payload is encrypted with k1, the activities' summaries (which name the tool's arguments) too. In clear:
    // the search attributes, which Temporal indexes and never encodes, and the marker core records for a local
    // activity (its type, attempt and times; its result is a payload of its own, encrypted).
    const payloads = history.payloads();
    const clear = payloads.filter((payload) => payload.metadata.encoding !== 'binary/encrypted');
    const markers = clear.filter((payload) => /markerRecordedEventAttributes\.details\.data\./.test(payload.path));
    expect(markers.length).toBeGreaterThan(0);
    for (const marker of markers) {
      const event = history.json.events[Number(/^\.events\[(\d+)\]/.exec(marker.path)?.[1])];
      expect(JSON.stringify(event)).toContain('"markerName":"core_local_activity"');
    }
    expect(
      clear.filter((payload) => !/searchAttributes\.indexedFields/.test(payload.path) && !markers.includes(payload)),
    ).toEqual([]);
    const encrypted = payloads.filter((payload) => payload.metadata.encoding === 'binary/encrypted');
    expect(new Set(encrypted.map((payload) => payload.metadata['encryption-key-id']))).toEqual(new Set(['k1']));
    expect(encrypted.some((payload) => /userMetadata\.summary/.test(payload.path))).toBe(true);
    // What the search attributes carry: a status, counters and a termination reason.
    const searchAttributes = clear
      .filter((payload) => !markers.includes(payload))
      .map((payload) => payload.path.replace(/^.*indexedFields\./, ''));
    expect(new Set(searchAttributes)).toEqual(
      new Set([
        'AgentStatus',
        'AgentIterations',
        'AgentTotalTokens',
        'AgentPendingApprovals',
        'AgentTerminationReason',
      ]),
    );
  });

  test('its encrypted history replays against the workflow code with the same data converter', async () => {
    const history = await env.client.workflow.getHandle(runId).fetchHistory();
    const results = await replayAgentHistories({
      histories: [{ workflowId: runId, history }],
      replayOptions: { dataConverter: payloadCodecDataConverter([k1]) },
    });
    expect(results.map((result) => result.error)).toEqual([undefined]);
    // Without the key the same history does not replay, and the error names the key.
    const [keyless] = await replayAgentHistories({
      histories: [{ workflowId: runId, history }],
      replayOptions: { dataConverter: payloadCodecDataConverter([]) },
    });
    expect(String(keyless?.error)).toMatch(/k1/);
  }, 120_000);

  test('a failure quoting the provider is encrypted too: "Encoded failure" in the history, the text for the client', async () => {
    const model = env.scenario([{ error: { status: 400, message: PROVIDER_TEXT } }]);
    const handle = await env.start({ model, tools: ['lookup'], message: PROMPT });
    const failure = await getAgentResult(env.client, handle.workflowId).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AgentRunFailedError);
    expect((failure as Error).message).toContain(PROVIDER_TEXT);

    const history = await rawHistory(handle.workflowId);
    expect(history.holding([PROVIDER_TEXT, PROMPT])).toEqual([]);
    const activityFailed = history.events('EVENT_TYPE_ACTIVITY_TASK_FAILED');
    expect(activityFailed).toHaveLength(1);
    expect(JSON.stringify(activityFailed[0])).toContain('"message":"Encoded failure"');
    const runFailed = history.events('EVENT_TYPE_WORKFLOW_EXECUTION_FAILED');
    expect(JSON.stringify(runFailed[0])).toContain('"message":"Encoded failure"');
    expect(JSON.stringify(runFailed[0])).not.toMatch(/"stackTrace":"[^"]/);
  });
});
