import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { PROJECT_ROOT, startStack, type Stack } from '../../dev/stack/stack';
import { currentDeploymentVersion } from '../../src/temporal/deployment-version';
import { waitFor } from '../helpers/wait';

/*
 * A deploy with runs in flight, on the production shape (Temporal 1.29.1 on PostgreSQL, the workers and the API
 * as processes of the built code). Build A's worker serves the runs that start; each run asks the user a question
 * and waits. Build B's worker is started and made the deployment's current version; build A's pinned runs finish on
 * A, its auto-upgrade runs move to B at their next workflow task, runs started after the switch run on B, and once
 * no pinned run is left on A (checked the way docs/operations/deploys.md says), A's worker is stopped and nothing
 * fails. The proof is in each run's history: the deployment version Temporal records on every completed workflow
 * task, and the worker identity (pid@host) of every activity.
 */

const DEPLOYMENT = 'agent-runner';
const BUILD_A = 'build-a';
const BUILD_B = 'build-b';
const MODEL = 'deploy-model';
const ANSWER = 'yes, carry on';
/** The runs started while build A is current, and those started after build B is. */
const ON_A = ['pinned-1', 'pinned-2', 'pinned-cli', 'pinned-continued', 'upgrading-1', 'default-1'];
const AFTER = ['after-1', 'after-pinned-1'];
const INPUT = {
  message: 'Tidy the workspace, asking before you start.',
  tools: ['ask_question', 'finish'],
  terminating: { toolIds: ['finish'] },
};

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const temporalEnums = temporal.api.enums.v1;

/** The fields of the API's answers this test reads. */
interface ApiAnswer {
  status: number;
  json: { state?: { status?: string }; outcome?: string; error?: { code?: string } };
}

let model: ScriptedModelServer;
let stack: Stack;
let directory: string;
let client: Client;
let connection: Connection;

/** A call to the stack's first API process. */
async function api(method: 'GET' | 'POST', route: string, body?: unknown): Promise<ApiAnswer> {
  const response = await fetch(`${stack.apis[0]!.url}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${stack.apiToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as ApiAnswer['json'] };
}

async function startRun(
  runId: string,
  versioning?: 'pinned' | 'auto-upgrade',
  input: Record<string, unknown> = INPUT,
): Promise<void> {
  const answer = await api('POST', '/runs', {
    input,
    run_id: runId,
    ...(versioning === undefined ? {} : { versioning }),
  });
  expect({ runId, status: answer.status }).toEqual({ runId, status: 202 });
}

/** `agent-runner start` of the built CLI, against the stack. */
async function startRunWithCli(runId: string, versioning: 'pinned' | 'auto-upgrade'): Promise<void> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      path.join(PROJECT_ROOT, 'dist', 'cli', 'index.js'),
      'start',
      INPUT.message,
      '--tools',
      INPUT.tools.join(','),
      '--terminate-on',
      'finish',
      '--id',
      runId,
      '--versioning',
      versioning,
      '--json',
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        TEMPORAL_ADDRESS: stack.address,
        TEMPORAL_NAMESPACE: stack.namespace,
        AGENT_TASK_QUEUE: stack.taskQueue,
      },
    },
  );
  expect(JSON.parse(stdout)).toMatchObject({ workflowId: runId });
}

function waitingForInput(runId: string): Promise<unknown> {
  return waitFor(
    () => api('GET', `/runs/${runId}`),
    (answer) => answer.json.state?.status === 'waiting_for_input',
    60_000,
  );
}

/** Makes `buildId` current once its worker has polled (the server knows a version only from its pollers). */
async function setCurrentVersion(buildId: string): Promise<void> {
  await waitFor(
    () =>
      connection.workflowService.setWorkerDeploymentCurrentVersion({
        namespace: stack.namespace,
        deploymentName: DEPLOYMENT,
        buildId,
        identity: 'deploys.test',
      }),
    () => true,
    60_000,
  );
  await waitFor(
    () => currentDeploymentVersion(client, stack.taskQueue),
    (current) => current?.buildId === buildId,
    30_000,
  );
}

/** Pinned runs still running on `buildId`: what must be 0 before its workers stop (docs/operations/deploys.md). */
async function pinnedRunsOn(buildId: string): Promise<number> {
  const { count } = await client.workflow.count(
    `TemporalWorkerDeploymentVersion = '${DEPLOYMENT}:${buildId}' AND TemporalWorkflowVersioningBehavior = 'Pinned' AND ExecutionStatus = 'Running'`,
  );
  return count;
}

/** The histories of every Temporal run of the run (one, or more once it continued as new), first to last. */
async function history(runId: string): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  const first = (await client.workflow.getHandle(runId).describe()).raw.workflowExecutionInfo?.firstRunId ?? undefined;
  let temporalRun: string | undefined = first;
  while (temporalRun) {
    const runEvents = (await client.workflow.getHandle(runId, temporalRun).fetchHistory()).events ?? [];
    events.push(...runEvents);
    temporalRun = runEvents.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return events;
}

/** The build each completed workflow task of the run ran on, in order. */
function workflowTaskBuilds(events: HistoryEvent[]): string[] {
  return events.flatMap((event) => {
    const completed = event.workflowTaskCompletedEventAttributes;
    if (!completed) return [];
    return [completed.deploymentVersion?.buildId ?? '(unversioned)'];
  });
}

/** The identities (pid@host) of the workers that ran the run's activities, without the stream listener they name. */
function activityWorkers(events: HistoryEvent[]): string[] {
  return events.flatMap((event) => {
    const started = event.activityTaskStartedEventAttributes;
    return started?.identity ? [started.identity.replace(/ agent-stream=\S+$/, '')] : [];
  });
}

beforeAll(async () => {
  if (!existsSync(path.join(PROJECT_ROOT, 'dist', 'processes', 'worker.js'))) {
    throw new Error('The stack runs the built code: run `npm run build` first.');
  }
  model = await ScriptedModelServer.start();
  // Asks once, then finishes once the question's answer is in the conversation.
  model.respond(MODEL, (request) =>
    JSON.stringify(request.messages).includes(ANSWER)
      ? { toolCalls: [{ name: 'finish', arguments: { note: 'done' } }] }
      : { toolCalls: [{ name: 'ask_question', arguments: { question: 'May I start?' } }] },
  );
  directory = await mkdtemp(path.join(os.tmpdir(), 'agent-runner-deploys-'));
  stack = await startStack({
    directory,
    fresh: true,
    model: { baseURL: model.baseURL, model: MODEL },
    log: (line) => process.stderr.write(`[stack] ${line}\n`),
    workers: 1,
    apis: 1,
    ui: false,
    workerEnv: () => ({ AGENT_DEPLOYMENT_NAME: DEPLOYMENT, AGENT_BUILD_ID: BUILD_A }),
  });
  connection = await Connection.connect({ address: stack.address });
  client = new Client({ connection, namespace: stack.namespace });
}, 180_000);

afterAll(async () => {
  await connection?.close();
  await stack?.stop();
  await model?.close();
  // Nothing of the stack outlives it.
  const left = (() => {
    try {
      return execFileSync('pgrep', ['-f', directory ?? 'no-directory'], { encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  })();
  if (directory) await rm(directory, { recursive: true, force: true });
  expect(left).toBe('');
}, 120_000);

test('a deploy with runs in flight: pinned runs finish on build A, the rest move to build B, nothing fails', async () => {
  const workerA = stack.workers[0]!;
  const identityA = `${workerA.pid()}@${os.hostname()}`;
  const startLine = (await readFile(path.join(stack.directory, 'worker-1.log'), 'utf8')).split('\n');
  expect(startLine.find((line) => line.startsWith('Worker polling'))).toContain(
    `deployment ${DEPLOYMENT}, build ${BUILD_A} (runs auto-upgrade by default)`,
  );

  // No current version yet: a pinned run has nothing to be pinned to, and is refused before it starts.
  const refused = await api('POST', '/runs', { input: INPUT, versioning: 'pinned' });
  expect([refused.status, refused.json.error?.code]).toEqual([409, 'no_current_version']);

  // Build A is the first version: make it current, and start runs on it that wait for a person.
  await setCurrentVersion(BUILD_A);
  await startRun('pinned-1', 'pinned');
  await startRun('pinned-2', 'pinned');
  await startRunWithCli('pinned-cli', 'pinned');
  // Continues as new after its first iteration, once answered: after the switch.
  await startRun('pinned-continued', 'pinned', { ...INPUT, iterationsPerRun: 1 });
  await startRun('upgrading-1', 'auto-upgrade');
  await startRun('default-1');
  for (const runId of ON_A) await waitingForInput(runId);
  expect(await pinnedRunsOn(BUILD_A)).toBe(4);

  // Deploy build B: its workers first, then make it current.
  const workerB = await stack.addWorker({ AGENT_DEPLOYMENT_NAME: DEPLOYMENT, AGENT_BUILD_ID: BUILD_B });
  await setCurrentVersion(BUILD_B);
  await startRun('after-1');
  await startRun('after-pinned-1', 'pinned');
  for (const runId of AFTER) await waitingForInput(runId);

  // The runs started on A take their answers now, after the switch.
  for (const runId of ON_A) {
    expect((await api('POST', `/runs/${runId}/messages`, { content: ANSWER })).status).toBe(202);
  }
  for (const runId of ON_A) {
    const result = await waitFor(
      () => api('GET', `/runs/${runId}/result`),
      (answer) => answer.status === 200,
      60_000,
    );
    expect({ runId, outcome: result.json.outcome }).toEqual({ runId, outcome: 'completed' });
  }

  // No pinned run is left on A (visibility catches up within seconds): its worker may stop.
  await waitFor(
    () => pinnedRunsOn(BUILD_A),
    (count) => count === 0,
    30_000,
  );
  await workerA.stop();
  // A finished pinned run's result is read from its history: it needs no worker of its build.
  const afterStop = await api('GET', '/runs/pinned-1/result');
  expect([afterStop.status, afterStop.json.outcome]).toEqual([200, 'completed']);

  for (const runId of AFTER) {
    expect((await api('POST', `/runs/${runId}/messages`, { content: ANSWER })).status).toBe(202);
  }
  for (const runId of AFTER) {
    const result = await waitFor(
      () => api('GET', `/runs/${runId}/result`),
      (answer) => answer.status === 200,
      60_000,
    );
    expect({ runId, outcome: result.json.outcome }).toEqual({ runId, outcome: 'completed' });
  }

  // The proof, from the histories.
  const identityB = `${workerB.pid()}@${os.hostname()}`;
  const seen: Record<
    string,
    { builds: string[]; activityWorkers: string[]; failedTasks: number; temporalRuns: number }
  > = {};
  for (const runId of [...ON_A, ...AFTER]) {
    const events = await history(runId);
    seen[runId] = {
      builds: workflowTaskBuilds(events),
      activityWorkers: activityWorkers(events),
      failedTasks: events.filter((event) => event.workflowTaskFailedEventAttributes).length,
      temporalRuns: events.filter((event) => event.workflowExecutionStartedEventAttributes).length,
    };
  }
  process.stderr.write(`[deploys] worker A ${identityA}, worker B ${identityB}\n`);
  process.stderr.write(`[deploys] ${JSON.stringify(seen, null, 2)}\n`);

  // The pinned run that continued as new did so on A, and its next Temporal run stayed on A (the override passes on).
  expect(seen['pinned-continued']!.temporalRuns).toBeGreaterThanOrEqual(2);
  for (const runId of ['pinned-1', 'pinned-2', 'pinned-cli', 'pinned-continued']) {
    const run = seen[runId]!;
    // Every workflow task, before and after the switch, on A; so was every activity.
    expect(new Set(run.builds)).toEqual(new Set([BUILD_A]));
    expect(run.builds.length).toBeGreaterThanOrEqual(3);
    expect(new Set(run.activityWorkers)).toEqual(new Set([identityA]));
  }
  for (const runId of ['upgrading-1', 'default-1']) {
    const run = seen[runId]!;
    // Started on A, moved to B at the first workflow task after the switch, and stayed there.
    expect(run.builds[0]).toBe(BUILD_A);
    expect(run.builds.at(-1)).toBe(BUILD_B);
    const firstB = run.builds.indexOf(BUILD_B);
    expect(run.builds.slice(firstB)).toEqual(run.builds.slice(firstB).map(() => BUILD_B));
  }
  for (const runId of AFTER) {
    expect(new Set(seen[runId]!.builds)).toEqual(new Set([BUILD_B]));
    expect(new Set(seen[runId]!.activityWorkers)).toEqual(new Set([identityB]));
  }
  for (const [runId, run] of Object.entries(seen))
    expect({ runId, failed: run.failedTasks }).toEqual({ runId, failed: 0 });

  // The runs' versioning as Temporal reports it.
  const pinned = await client.workflow.getHandle('pinned-1').describe();
  expect(pinned.raw.workflowExecutionInfo?.versioningInfo?.versioningOverride?.pinned?.version?.buildId).toBe(BUILD_A);
  // The continued run's last Temporal run declared itself pinned (the run's memo), on A.
  const continued = (await client.workflow.getHandle('pinned-continued').describe()).raw.workflowExecutionInfo;
  expect(continued?.versioningInfo?.behavior).toBe(temporalEnums.VersioningBehavior.VERSIONING_BEHAVIOR_PINNED);
  expect(continued?.versioningInfo?.deploymentVersion?.buildId).toBe(BUILD_A);
  const upgrading = await client.workflow.getHandle('upgrading-1').describe();
  expect(upgrading.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId).toBe(BUILD_B);
}, 240_000);
