import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startAgentRun } from '../../src/client';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { PROJECT_ROOT, startStack, type Stack } from '../../dev/stack/stack';
import { freePort } from '../../src/os/ports';
import { readEventStream, type SseEvent } from '../helpers/api';

/**
 * The model's deltas across processes, on the production shape (`startStack`: Temporal on PostgreSQL, workers and
 * API processes from the built `dist/`), with the workers' stream ports bound as production binds them:
 *
 * - worker-1 binds every address (`AGENT_STREAM_HOST=0.0.0.0`) and announces the machine's own network address in
 *   `AGENT_STREAM_PUBLIC_URL` (one URL per worker);
 * - worker-2 binds every address and sets no public URL, as a compose replica does: it announces the machine's host
 *   name;
 * - worker-3, on a task queue of its own, binds loopback only (the default) but announces the machine's network
 *   address: its port cannot be reached there, the way a firewalled port cannot. (A machine with loopback alone
 *   announces a port nothing listens on instead.)
 *
 * Each run is followed over Server-Sent Events through both API processes at once.
 */

const MACHINE_ADDRESS = networkAddress();
const FIREWALLED_SUFFIX = '-firewalled';

let model: ScriptedModelServer;
let stack: Stack;
let client: Client;
let connection: Connection;
let directory: string;
const announced: string[] = [];

/** The machine's first IPv4 address other than loopback, or 127.0.0.1 where it has none. */
function networkAddress(): string {
  for (const addresses of Object.values(os.networkInterfaces()))
    for (const address of addresses ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
  return '127.0.0.1';
}

/** The stack runs `dist/`: a build older than the source would test other code than this. */
function newestModification(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true }))
    if (entry.isFile() && entry.name.endsWith('.ts'))
      newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  return newest;
}

beforeAll(async () => {
  const built = [path.join(PROJECT_ROOT, 'dist/processes/worker.js'), path.join(PROJECT_ROOT, 'dist/api/main.js')];
  const oldestBuild = Math.min(...built.map((file) => statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0));
  if (oldestBuild < newestModification(path.join(PROJECT_ROOT, 'src')))
    throw new Error('dist/ is missing or older than src/: run `npm run build` before the stack tests.');

  model = await ScriptedModelServer.start();
  const ports = [await freePort(), await freePort(), await freePort(), await freePort()];
  const [port1, port2, port3, nothing] = ports as [number, number, number, number];
  const firewalledUrl =
    MACHINE_ADDRESS === '127.0.0.1' ? `http://127.0.0.1:${nothing}` : `http://${MACHINE_ADDRESS}:${port3}`;
  const streamEnv: NodeJS.ProcessEnv[] = [
    {
      AGENT_STREAM_HOST: '0.0.0.0',
      AGENT_STREAM_PORT: String(port1),
      AGENT_STREAM_PUBLIC_URL: `http://${MACHINE_ADDRESS}:${port1}`,
    },
    // Empty is unset: the listener announces the machine's host name.
    { AGENT_STREAM_HOST: '0.0.0.0', AGENT_STREAM_PORT: String(port2), AGENT_STREAM_PUBLIC_URL: '' },
    {
      AGENT_STREAM_HOST: '127.0.0.1',
      AGENT_STREAM_PORT: String(port3),
      AGENT_STREAM_PUBLIC_URL: firewalledUrl,
      AGENT_TASK_QUEUE: `agent-runner${FIREWALLED_SUFFIX}`,
    },
  ];
  directory = await mkdtemp(path.join(os.tmpdir(), 'stack-streaming-'));
  stack = await startStack({
    directory,
    fresh: true,
    model: { baseURL: model.baseURL, model: 'unused-default' },
    log: (line) => process.stderr.write(`[stack] ${line}\n`),
    workers: 3,
    apis: 2,
    ui: false,
    taskQueue: 'agent-runner',
    workerEnv: (index) => streamEnv[index] ?? {},
  });
  for (let index = 0; index < 3; index += 1) {
    const log = readFileSync(path.join(directory, `worker-${index + 1}.log`), 'utf8');
    announced.push(/serving streamed model deltas to followers at (\S+)/.exec(log)?.[1] ?? '(none)');
  }
  connection = await Connection.connect({ address: stack.address });
  client = new Client({ connection, namespace: stack.namespace });
}, 240_000);

afterAll(async () => {
  await connection?.close();
  await stack?.stop();
  await model?.close();
  if (directory !== undefined) {
    // Nothing of the stack is left running.
    const left = spawnSync('pgrep', ['-f', directory], { encoding: 'utf8' });
    expect(left.stdout.trim()).toBe('');
    // The cluster's files and the logs, about 60 MB a start.
    await rm(directory, { recursive: true, force: true });
  }
}, 120_000);

const FIRST_LOOK = 'First the files of the workspace, to see what is there before answering.';
const ANSWER =
  'Every API process reads this answer from whichever worker runs the call, a few words at a time, as it is written.';

/**
 * A run of two model calls, each streamed in a few dozen chunks over about four seconds: a tool call with some text,
 * then the answer. A follower reads a call's deltas once its durable events show the call running: long enough that a
 * follower whose durable events lag by seconds (a machine loaded by other suites) still finds each call running.
 */
function slowScript(): string {
  const name = `stream-${randomUUID().slice(0, 8)}`;
  model.script(name, [
    {
      content: 'Let me look at the files first, then I will write the answer down for you, a few words at a time.',
      toolCalls: [{ name: 'list_files', arguments: {} }],
      tokenDelayMs: 200,
    },
    { content: ANSWER, tokenDelayMs: 200 },
  ]);
  return name;
}

/** Follows `runId` over SSE through API `index`, from its first event to `end`. */
async function follow(index: number, runId: string): Promise<SseEvent[]> {
  const api = stack.apis[index];
  if (api === undefined) throw new Error(`no API ${index}`);
  const stream = await readEventStream(
    `${api.url}/runs/${encodeURIComponent(runId)}/events`,
    { authorization: `Bearer ${stack.apiToken}` },
    (event) => event.event === 'end' || event.event === 'error',
  );
  expect(stream.status).toBe(200);
  return stream.events;
}

const durable = (events: SseEvent[]) =>
  events
    .filter((event) => event.id !== undefined)
    .map((event) => {
      // A follower may read an event from a workflow task that is then retried, whose own events carry the retry's time.
      const data: Record<string, unknown> = { ...event.data, at: undefined };
      return { id: event.id, event: event.event, data };
    });
const textOf = (events: SseEvent[]) =>
  events
    .filter((event) => event.event === 'model-text-delta')
    .map((event) => event.data.text as string)
    .join('');
const recordedText = (events: SseEvent[]) =>
  events
    .filter((event) => event.event === 'model-response')
    .map((event) => (event.data.content as string | undefined) ?? '')
    .join('');

/** Which worker (1, 2, 3) ran the run's model calls, from the identity its activities started under. */
async function workersOf(runId: string): Promise<number[]> {
  const history = await client.workflow.getHandle(runId).fetchHistory();
  const identities = new Set(
    (history.events ?? []).flatMap((event) => event.activityTaskStartedEventAttributes?.identity ?? []),
  );
  return stack.workers.flatMap((worker, index) =>
    [...identities].some((identity) => identity.startsWith(`${worker.pid()}@`)) ? [index + 1] : [],
  );
}

describe('model deltas across processes, on the production shape', () => {
  test('each worker announces its own reachable URL: the machine address it was given, or its host name', async () => {
    expect(announced[0]).toMatch(new RegExp(`^http://${MACHINE_ADDRESS.replace(/\./g, '\\.')}:\\d+$`));
    expect(announced[1]).toMatch(new RegExp(`^http://${os.hostname().replace(/\./g, '\\.')}:\\d+$`));
    // Another process reaches each at the URL it announced: the listener itself answers (401: a stream needs its
    // credential). The third one's announced port is closed to it.
    for (const url of announced.slice(0, 2)) {
      const answer = await fetch(`${url}/model-streams/00000000-0000-0000-0000-000000000000`);
      expect(answer.status).toBe(401);
    }
    await expect(fetch(`${announced[2]}/model-streams/00000000-0000-0000-0000-000000000000`)).rejects.toThrow();
  });

  test('through either API process: both followers get every delta, and every durable event, of runs on the workers', async () => {
    const runs = await Promise.all(
      Array.from({ length: 2 }, async (_, index) => {
        const api = stack.apis[index % 2];
        const started = await fetch(`${api?.url}/runs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${stack.apiToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ input: { model: slowScript(), message: 'look, then answer', tools: ['list_files'] } }),
        });
        expect(started.status).toBe(202);
        const runId = ((await started.json()) as { run_id: string }).run_id;
        // One follower per API process, both from the run's start.
        const [first, second] = await Promise.all([follow(0, runId), follow(1, runId)]);
        return { runId, followers: [first, second] };
      }),
    );

    const servedBy = new Set<number>();
    for (const { runId, followers } of runs) {
      for (const worker of await workersOf(runId)) servedBy.add(worker);
      // Every durable event, read again once the run has ended.
      const log = durable(await follow(0, runId));
      expect(log.map((event) => Number(event.id))).toEqual(log.map((_, index) => index + 1));
      for (const events of followers) {
        expect(events.at(-1)).toMatchObject({
          event: 'end',
          data: { outcome: 'completed', result: { response: ANSWER } },
        });
        // Many deltas per answer, in order, each call's before its model-response; together the recorded text.
        expect(events.filter((event) => event.event === 'model-text-delta').length).toBeGreaterThan(20);
        expect(textOf(events)).toBe(recordedText(events));
        expect(textOf(events)).toContain(ANSWER);
        const types = events.map((event) => event.event);
        expect(types.lastIndexOf('model-text-delta')).toBeLessThan(types.lastIndexOf('model-response'));
        expect(types).not.toContain('model-stream-unreachable');
        expect(types).not.toContain('model-delta-reset');
        expect(durable(events)).toEqual(log);
      }
    }
    process.stderr.write(`[stack streaming] runs served by worker(s) ${[...servedBy].join(', ')}\n`);
    expect([...servedBy].every((worker) => worker === 1 || worker === 2)).toBe(true);
  }, 90_000);

  test('a worker whose stream port the APIs cannot reach: each follower says so once, and still gets every durable event', async () => {
    const firewalled = stack.workers[2];
    expect(announced[2]).not.toBe('(none)');
    const { workflowId } = await startAgentRun(
      client,
      // Three model calls, each streaming: the notice is said once, not per call.
      {
        model: (() => {
          const name = `firewalled-${randomUUID().slice(0, 8)}`;
          model.script(name, [
            { content: FIRST_LOOK, toolCalls: [{ name: 'list_files', arguments: {} }], tokenDelayMs: 100 },
            { content: FIRST_LOOK, toolCalls: [{ name: 'list_files', arguments: {} }], tokenDelayMs: 100 },
            { content: ANSWER, tokenDelayMs: 100 },
          ]);
          return name;
        })(),
        message: 'look twice, then answer',
        tools: ['list_files'],
      },
      { taskQueue: `agent-runner${FIREWALLED_SUFFIX}` },
    );
    const followers = await Promise.all([follow(0, workflowId), follow(1, workflowId)]);
    expect(await workersOf(workflowId)).toEqual([3]);
    expect(firewalled?.pid()).toBeDefined();

    const log = durable(await follow(1, workflowId));
    for (const events of followers) {
      const notices = events.filter((event) => event.event === 'model-stream-unreachable');
      expect(notices).toHaveLength(1);
      expect(notices[0]?.id).toBeUndefined();
      expect(notices[0]?.data).toMatchObject({
        type: 'model-stream-unreachable',
        attempt: 1,
        reason:
          MACHINE_ADDRESS === '127.0.0.1'
            ? expect.stringContaining('refused')
            : "the connection to the worker's stream port was refused (ECONNREFUSED)",
      });
      // Neither the worker's address nor the stream's credential reaches the API's caller.
      expect(JSON.stringify(notices[0]?.data)).not.toContain(MACHINE_ADDRESS);
      expect(events.filter((event) => event.event === 'model-text-delta')).toEqual([]);
      expect(events.filter((event) => event.event === 'model-response')).toHaveLength(3);
      expect(durable(events)).toEqual(log);
      expect(events.at(-1)).toMatchObject({
        event: 'end',
        data: { outcome: 'completed', result: { response: ANSWER } },
      });
    }
    // The operator's side: each API process logs it once per follow, naming the rule.
    for (let index = 1; index <= 2; index += 1) {
      const apiLog = readFileSync(path.join(directory, `api-${index}.log`), 'utf8');
      const warnings = apiLog
        .split('\n')
        .filter((line) => line.includes("cannot read a worker's streamed model deltas"));
      expect(warnings.length).toBeGreaterThanOrEqual(1);
      expect(warnings.join('\n')).toContain("every worker's stream port");
    }
  }, 60_000);
});
