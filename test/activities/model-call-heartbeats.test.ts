import { request } from 'node:http';
import { createActivities } from '../../src/activities';
import { DeltaHub } from '../../src/activities/delta-hub';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import type { AgentActivities, ModelCallInput } from '../../src/shared/activity-types';
import { modelStreamPath } from '../../src/shared/model-stream-path';
import { SPENT_USAGE_KEY } from '../../src/shared/spent-usage';
import { createToolRegistry } from '../../src/tools/tool-registry';
import { quietEnvironment, scriptModel } from '../helpers/model-activities';
import { rejectionOf, waitUntil } from '../helpers/promises';

/**
 * How `callModel` heartbeats, in Temporal's mock activity environment against the scripted model: a call with the
 * run's stream key on a worker whose identity names its listener streams at the call's own path and sends no
 * heartbeat; an attempt still running just before its start-to-close timeout heartbeats what it spent.
 */

const STREAM_KEY = 'k'.repeat(43);
let server: ScriptedModelServer;
let hub: DeltaHub;
let keyed: AgentActivities;

beforeAll(async () => {
  server = await ScriptedModelServer.start();
  hub = new DeltaHub({ host: '127.0.0.1', port: 0 });
  keyed = createActivities({
    registry: createToolRegistry([]),
    model: { baseURL: server.baseURL, apiKey: 'test', defaultModel: 'unused' },
    hub,
    streamsInIdentity: () => true,
  });
});
afterAll(async () => {
  await hub.close();
  await server.close();
});

const input = (model: string, overrides: Partial<ModelCallInput> = {}): ModelCallInput => ({
  model,
  messages: [{ role: 'user', content: 'Hello.' }],
  toolNames: [],
  parallelToolCalls: true,
  ...overrides,
});

/** The body a GET of `url` with `token` answers, to its end. */
function read(url: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { headers: { authorization: `Bearer ${token}` } }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

test("a keyed call streams at its own path, with the run's key, and sends no heartbeat", async () => {
  const model = scriptModel(server, 'keyed', [{ content: 'one two three four five six', tokenDelayMs: 200 }]);
  const environment = quietEnvironment({ heartbeatTimeoutMs: 50_000, startToCloseTimeoutMs: 60_000 });
  const beats: unknown[] = [];
  environment.on('heartbeat', (details: unknown) => beats.push(details));
  const running = environment.run(keyed.callModel, input(model, { streamKey: STREAM_KEY }));
  await waitUntil(() => server.requests(model).length === 1);
  const { workflowExecution, activityId, attempt } = environment.context.info;
  const path = modelStreamPath({ runId: workflowExecution?.runId ?? '', activityId, attempt });
  const url = `${await hub.start()}/model-streams/${path}`;
  const [followed, wrong] = await Promise.all([read(url, STREAM_KEY), read(url, 'x'.repeat(43))]);
  const result = (await running) as { message: { content: string | null } };

  expect(result.message.content).toBe('one two three four five six');
  expect(beats).toEqual([]);
  expect(followed.status).toBe(200);
  expect(followed.body).toContain('"end":"completed"');
  expect(followed.body).toContain('six');
  expect(wrong.status).toBe(404);
});

test('a call without the key announces its stream in a heartbeat at once, as before', async () => {
  const model = scriptModel(server, 'unkeyed', [{ content: 'ok' }]);
  const environment = quietEnvironment({ heartbeatTimeoutMs: 50_000, startToCloseTimeoutMs: 60_000 });
  const beats: unknown[] = [];
  environment.on('heartbeat', (details: unknown) => beats.push(details));
  await environment.run(keyed.callModel, input(model));

  expect(beats[0]).toMatchObject({ modelStream: { url: expect.stringMatching(/\/model-streams\/[0-9a-f-]{36}$/) } });
});

test('an attempt still running just before its start-to-close timeout heartbeats what it spent', async () => {
  const words = Array.from({ length: 200 }, (_, index) => `w${index}`).join(' ');
  const model = scriptModel(server, 'timeout', [{ content: words, tokenDelayMs: 50 }]);
  // The final heartbeat is due 2 s before the 5 s timeout; no periodic one comes before (25 s).
  const environment = quietEnvironment({ heartbeatTimeoutMs: 50_000, startToCloseTimeoutMs: 5_000 });
  const beats: { at: number; details: unknown }[] = [];
  environment.on('heartbeat', (details: unknown) => beats.push({ at: Date.now(), details }));
  const startedAt = Date.now();
  const outcome = rejectionOf(environment.run(keyed.callModel, input(model, { streamKey: STREAM_KEY })));
  await waitUntil(() => beats.length > 0, 10_000);
  environment.cancel();
  await outcome;

  expect(beats).toHaveLength(1);
  expect((beats[0]?.at ?? 0) - startedAt).toBeGreaterThanOrEqual(2_900);
  const spent = (beats[0]?.details as Record<string, { completionTokens: number; estimated: boolean }>)[
    SPENT_USAGE_KEY
  ];
  expect(spent?.completionTokens).toBeGreaterThan(0);
  expect(spent?.estimated).toBe(true);
});
