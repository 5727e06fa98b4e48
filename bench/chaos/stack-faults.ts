import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import type { AgentInput } from '../../src/shared/agent-input';
import { buildDist } from '../../dev/stack/build-dist';
import { startStack, type Stack } from '../../dev/stack/stack';
import { ApiProbe, type ProbeVerdict } from './api-probe';
import { CHAOS_MODEL } from './chaos-agent';
import { prepareChaosWorkers } from './chaos-setup';
import { CHAOS_DELEGATE } from './chaos-delegate';
import { CHAOS_MCP_TOOL, orphanedMcpServers } from './chaos-mcp';
import { countFeatureCoverage } from './feature-coverage';
import { countModelCallsByReference } from './model-calls-by-reference';
import { printPhaseReports, type PhaseResult } from './phase-report';
import { coverageNotes, followProgress, labels, seconds } from './progress';
import { startRunBatch, type RunBatch } from './run-batch';
import type { RunOutcome } from './run-comparison';
import { between, seededRandom } from './seeded-random';
import { readSideEffects, summarizeSideEffects } from './side-effects';
import { compareFollowers, followOverApis, type FollowResult } from './sse-follower';
import { READY_LINE } from './worker-contract';

/** The chaos worker, run by the stack in place of `dist/processes/worker.js`. */
const WORKER_SCRIPT = path.join(__dirname, 'worker-process.ts');
/** The slowest a 503 may come while Temporal is down: "about 2 s" (the API's Temporal deadline is 2 s). */
const UNAVAILABLE_WITHIN_MS = 2_500;
/**
 * The longest from the Temporal kill to the first 503: a 503's own 2.5 s, after the probe's 200 ms pause and a
 * request that was answered just after the kill.
 */
const FIRST_UNAVAILABLE_WITHIN_MS = 3_000;
/** The longest wait for a 2xx once a part is back before the API counts as not recovering by itself. */
const RECOVERY_LIMIT_MS = 60_000;

/** The chaos harness's settings (bench/chaos/run.ts's options), both forms'. */
export interface StackFaultOptions {
  runs: number;
  serverRuns: number;
  iterations: number;
  killMin: number;
  killMax: number;
  toolWork: number;
  modelWork: number;
  resultBytes: number;
  inlineThreshold: number;
  deadline: number;
  seed: number;
  temporalDown: number;
  postgresDown: number;
}

type Batch = (
  prefix: string,
  runLabels: string[],
  start?: Parameters<typeof startRunBatch>[0]['start'],
) => Promise<RunBatch>;

/** What every phase needs. */
interface Context {
  options: StackFaultOptions;
  stack: Stack;
  client: Client;
  batch: Batch;
  references: Map<string, RunOutcome>;
  sideEffectLog: string;
  mcpPidLog: string;
  say: (line: string) => void;
  /** Which worker each worker process id was, so the report can say both workers served the runs. */
  workerOfPid: Map<number, string>;
}

/**
 * `npm run chaos -- --stack`: the chaos runs on the production shape (`startStack`: Temporal on PostgreSQL, two
 * workers, two API processes), with one fault at a time: workers SIGKILLed in turn and restarted, the Temporal server
 * SIGKILLed and started again, PostgreSQL SIGKILLed and started again, PostgreSQL stopped for a while, one API process
 * SIGKILLed while followers read run events through it. The stack's workers are the chaos worker
 * (worker-process.ts), so the runs and the side-effect log are those of the dev-server form; every run is compared
 * with the same run on the stack without faults. While Temporal or PostgreSQL is down a probe asks both APIs about a
 * run, to time the 503 and the recovery; the API phase's followers of `GET /runs/:id/events` must resume on the other
 * API from `Last-Event-ID` and receive what a follower on the surviving API received. Returns the exit code.
 */
export async function runStackFaults(
  options: StackFaultOptions,
  say: (line: string) => void,
  elapsed: () => string,
): Promise<number> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'agent-runner-chaos-stack-'));
  // mkdtemp's folder is the caller's alone; PostgreSQL runs as its own user (as root, `postgres`) and must reach its folder below.
  await chmod(directory, 0o755);
  say(`working in ${directory} (the stack's folder with its logs, the side-effect log)`);
  say('building dist/ (the stack runs its API processes from the built code)');
  await buildDist();
  const taskQueue = `chaos-stack-${process.pid}`;
  const { model, workerEnvironment, sideEffectLog, mcpPidLog } = await prepareChaosWorkers(
    directory,
    taskQueue,
    options,
    say,
  );
  const stackStarted = performance.now();
  let stack: Stack | undefined;
  let connection: Connection | undefined;
  let exitCode = 1;
  // Ctrl-C: the stack's processes run in process groups of their own, so stop them before leaving.
  const abort = new AbortController();
  const interrupted = () => {
    say('interrupted: stopping the stack');
    abort.abort(new Error('interrupted'));
    void (stack?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    stack = await startStack({
      signal: abort.signal,
      directory: path.join(directory, 'stack'),
      fresh: true,
      model: { baseURL: model.baseURL, model: CHAOS_MODEL },
      log: (line) => say(`stack: ${line}`),
      ui: false,
      taskQueue,
      workerCommand: {
        command: process.execPath,
        args: ['--import', 'tsx', WORKER_SCRIPT],
        readyLine: new RegExp(`^${READY_LINE}$`),
      },
      workerEnv: () => ({ ...workerEnvironment }),
    });
    say(
      `stack up in ${seconds(performance.now() - stackStarted)}: Temporal ${stack.versions.temporal} on PostgreSQL at ${stack.address}, ` +
        `${stack.workers.length} chaos workers, APIs ${stack.apis.map((api) => api.url).join(', ')}`,
    );
    connection = await Connection.connect({ address: stack.address });
    const client = new Client({ connection, namespace: stack.namespace });
    const deadline = () => performance.now() + options.deadline * 1_000;
    const batch: Batch = (prefix, runLabels, start) =>
      startRunBatch({
        client,
        taskQueue,
        prefix: `chaos-stack-${process.pid}-${prefix}`,
        labels: runLabels,
        iterations: options.iterations,
        inlineThreshold: options.inlineThreshold,
        deadline: deadline(),
        ...(start === undefined ? {} : { start }),
      });
    const workerOfPid = new Map<number, string>();
    noteWorkerPids(stack, workerOfPid);

    const phaseLabels = {
      kill: labels('k', options.runs),
      temporal: labels('t', options.serverRuns),
      postgres: labels('p', options.serverRuns),
      unreachable: labels('u', options.serverRuns),
      api: labels('a', options.serverRuns),
    };
    const all = Object.values(phaseLabels).flat();
    say(`crash-free reference: ${all.length} runs on the stack's two workers, no faults`);
    const referenceBatch = await batch('reference', all);
    await followProgress(referenceBatch, () => '', say);
    const references = new Map((await referenceBatch.outcomes).map((outcome, index) => [all[index] ?? '', outcome]));
    const referenceWorkers = workersThatServed(readSideEffects(sideEffectLog), referenceBatch.workflowIds, workerOfPid);
    say(`reference side effects by: ${referenceWorkers.join(', ')}`);

    const context: Context = {
      options,
      stack,
      client,
      batch,
      references,
      sideEffectLog,
      mcpPidLog,
      say,
      workerOfPid,
    };
    const phases: PhaseResult[] = [];
    if (phaseLabels.kill.length > 0) phases.push(await workerKillPhase(context, phaseLabels.kill));
    if (phaseLabels.temporal.length > 0) phases.push(await temporalRestartPhase(context, phaseLabels.temporal));
    if (phaseLabels.postgres.length > 0) phases.push(await postgresPhase(context, phaseLabels.postgres, 'restart'));
    if (phaseLabels.unreachable.length > 0) {
      phases.push(await postgresPhase(context, phaseLabels.unreachable, 'unreachable'));
    }
    if (phaseLabels.api.length > 0) phases.push(await apiKillPhase(context, phaseLabels.api));

    console.log('');
    console.log(
      `agent-runner chaos on the stack (Temporal ${stack.versions.temporal} on PostgreSQL ${stack.postgres.majorVersion}, ` +
        `${stack.workers.length} workers, ${stack.apis.length} APIs): seed ${options.seed}, ${options.iterations} model calls per run of ${options.modelWork} ms each, ` +
        `the chaos tool works ${options.toolWork} ms after its side effect and answers ${options.resultBytes} bytes of padding, cached past ${options.inlineThreshold} characters; ` +
        `${os.cpus().length} cores, node ${process.version}`,
    );
    const problems: string[] = [];
    if (referenceWorkers.length < stack.workers.length) {
      problems.push(
        `reference: only ${referenceWorkers.join(', ')} served the runs; the stack has ${stack.workers.length} workers`,
      );
    }
    console.log('');
    console.log(`crash-free reference: ${all.length} runs, side effects by ${referenceWorkers.join(', ')}`);
    exitCode = printPhaseReports(phases, problems, elapsed);
  } finally {
    await stack?.stop();
    await model.close();
    if (exitCode === 0) await rm(directory, { recursive: true, force: true });
    else say(`kept ${directory} for a look (stack/*.log, side-effects.jsonl)`);
    await connection?.close();
  }
  return exitCode;
}

/** Worker crashes: SIGKILL the stack's workers in turn at random moments, each restarted at once, until every run has ended. */
async function workerKillPhase(context: Context, runLabels: string[]): Promise<PhaseResult> {
  const { options, stack, client, say } = context;
  const started = performance.now();
  say(
    `worker kills: ${runLabels.length} runs; a worker, each in turn, is SIGKILLed ${options.killMin}-${options.killMax} s after the last restart, and restarted at once`,
  );
  const runs = await context.batch('kill', runLabels);
  const random = seededRandom(options.seed);
  const restartTimes: number[] = [];
  const killed: { pid: number; at: number }[] = [];
  let kills = 0;
  let done = false;
  const killer = (async () => {
    while (!done) {
      await sleep(between(random, options.killMin * 1_000, options.killMax * 1_000));
      if (done) break;
      const worker = stack.workers[kills % stack.workers.length];
      if (worker === undefined) break;
      const pid = worker.pid();
      await worker.kill();
      if (pid !== undefined) killed.push({ pid, at: Date.now() });
      kills += 1;
      const restarting = performance.now();
      await worker.start();
      restartTimes.push(performance.now() - restarting);
      noteWorkerPids(stack, context.workerOfPid);
    }
  })();
  await followProgress(runs, () => `, ${kills} kills`, say);
  done = true;
  await killer;
  await stack.savePids();
  const outcomes = await runs.outcomes;
  const modelCalls = await countModelCallsByReference(client, runs.workflowIds);
  const coverage = countFeatureCoverage(outcomes);
  const livePids = stack.workers.map((worker) => worker.pid());
  let orphans = orphanedMcpServers(context.mcpPidLog, livePids);
  for (let wait = 0; orphans.length > 0 && wait < 50; wait += 1) {
    await sleep(100);
    orphans = orphanedMcpServers(context.mcpPidLog, livePids);
  }
  const records = readSideEffects(context.sideEffectLog);
  const served = workersThatServed(records, runs.workflowIds, context.workerOfPid);
  const sideEffects = summarizeSideEffects(records, new Set(runs.workflowIds));
  // A kill landed in a tool call when the killed worker started a side effect of these runs within the tool's work time before it.
  const phaseIds = new Set(runs.workflowIds);
  const landed = killed.filter((kill) =>
    records.some((record) => {
      const at = Date.parse(record.at);
      return (
        record.pid === kill.pid &&
        phaseIds.has(record.workflowId.split('/')[0] ?? '') &&
        at <= kill.at &&
        at > kill.at - options.toolWork
      );
    }),
  ).length;
  const sorted = [...restartTimes].sort((left, right) => left - right);
  return {
    title: `worker kills: ${runLabels.length} runs, the stack's workers SIGKILLed in turn ${options.killMin}-${options.killMax} s apart`,
    runs: phaseRuns(context, runLabels, runs, outcomes),
    sideEffects,
    notes: [
      `kills:                    ${kills} (restart to ready p50 ${seconds(sorted[Math.floor(sorted.length / 2)])}, max ${seconds(sorted.at(-1))})`,
      `kills in a tool call:     ${landed} of ${kills} (the killed worker was inside a chaos_step of these runs)`,
      `workers that served:      ${served.join(', ')}`,
      `model calls by reference: ${modelCalls.byReference} of ${modelCalls.all}; ${modelCalls.byReferenceRetried} retried after a kill`,
      ...coverageNotes(coverage),
      `MCP servers:              ${orphans.length} server processes outlived their killed worker`,
    ],
    problems: [
      ...(kills === 0 ? ['no worker was killed while the runs were in flight'] : []),
      ...(served.length < stack.workers.length ? [`only ${served.join(', ')} served the runs`] : []),
      ...(coverage.childRuns === 0 ? [`no nested agent (${CHAOS_DELEGATE}) ran`] : []),
      ...(coverage.mcpCalls === 0 ? [`no MCP tool call (${CHAOS_MCP_TOOL}) was answered`] : []),
      ...(orphans.length > 0 ? [`MCP server processes ${orphans.join(', ')} outlived their killed worker`] : []),
    ],
    elapsedMs: performance.now() - started,
  };
}

/** Temporal down: SIGKILL the server mid-run, keep it down a while, start it again; the API must say 503 meanwhile. */
async function temporalRestartPhase(context: Context, runLabels: string[]): Promise<PhaseResult> {
  const { options, stack, say } = context;
  const started = performance.now();
  say(
    `Temporal restart: ${runLabels.length} runs; the Temporal server is SIGKILLed mid-run, left down ${options.temporalDown} s, and started again`,
  );
  const runs = await context.batch('temporal', runLabels);
  const effectsBefore = await waitMidRun(context, runs);
  const probe = await startProbe(stack, runs);
  const faultAt = performance.now();
  await stack.temporal.kill();
  say(`Temporal SIGKILLed after ${effectsBefore} side effects of this phase`);
  await sleep(options.temporalDown * 1_000);
  const restarting = performance.now();
  await stack.temporal.start();
  const backAt = performance.now();
  say(`Temporal answers again ${seconds(backAt - restarting)} after its start`);
  const verdict = await probeVerdict(probe, faultAt, restarting);
  const { outcomes, restarted } = await settleAfterOutage(context, runs);
  return {
    title: `Temporal restart: ${runLabels.length} runs, the Temporal server SIGKILLed mid-run, down ${options.temporalDown} s, started again`,
    runs: phaseRuns(context, runLabels, runs, outcomes),
    sideEffects: summarizeSideEffects(readSideEffects(context.sideEffectLog), new Set(runs.workflowIds)),
    notes: [
      `Temporal down:            ${seconds(backAt - faultAt)} (killed after ${effectsBefore} side effects; its start took ${seconds(backAt - restarting)})`,
      ...verdictNotes(verdict, 'Temporal'),
      ...coverageNotes(countFeatureCoverage(outcomes)),
      ...restarted.map((name) => `${name} exited by itself and was started again`),
    ],
    problems: [
      ...unavailableProblems(verdict),
      ...restarted.map((name) => `${name} exited by itself while Temporal was down`),
    ],
    elapsedMs: performance.now() - started,
  };
}

/**
 * PostgreSQL down: `restart` SIGKILLs the postmaster mid-run and starts it again at once (crash recovery from the
 * WAL); `unreachable` stops it (fast shutdown) and leaves it down `postgresDown` s before it starts again.
 */
async function postgresPhase(
  context: Context,
  runLabels: string[],
  kind: 'restart' | 'unreachable',
): Promise<PhaseResult> {
  const { options, stack, say } = context;
  const started = performance.now();
  const what =
    kind === 'restart'
      ? 'PostgreSQL SIGKILLed mid-run and started again at once'
      : `PostgreSQL stopped mid-run, unreachable ${options.postgresDown} s, started again`;
  say(`PostgreSQL ${kind}: ${runLabels.length} runs; ${what}`);
  const runs = await context.batch(kind === 'restart' ? 'postgres' : 'unreachable', runLabels);
  const effectsBefore = await waitMidRun(context, runs);
  const probe = await startProbe(stack, runs);
  const faultAt = performance.now();
  if (kind === 'restart') {
    await stack.postgres.kill();
  } else {
    await stack.postgres.stop();
    await sleep(options.postgresDown * 1_000);
  }
  const restarting = performance.now();
  await stack.postgres.start();
  const backAt = performance.now();
  say(`PostgreSQL accepts connections again ${seconds(backAt - restarting)} after its start`);
  // The Temporal server is not restarted: it must find its database again by itself.
  const temporalExited = stack.temporal.pid() === undefined;
  if (temporalExited) await stack.temporal.start();
  const verdict = await probeVerdict(probe, faultAt, restarting);
  const { outcomes, restarted } = await settleAfterOutage(context, runs);
  return {
    title: `PostgreSQL ${kind}: ${runLabels.length} runs, ${what}`,
    runs: phaseRuns(context, runLabels, runs, outcomes),
    sideEffects: summarizeSideEffects(readSideEffects(context.sideEffectLog), new Set(runs.workflowIds)),
    notes: [
      `PostgreSQL down:          ${seconds(backAt - faultAt)} (after ${effectsBefore} side effects; its start took ${seconds(backAt - restarting)})`,
      ...verdictNotes(verdict, 'PostgreSQL'),
      ...coverageNotes(countFeatureCoverage(outcomes)),
      ...(temporalExited ? ['the Temporal server exited while PostgreSQL was down, and was started again'] : []),
      ...restarted.map((name) => `${name} exited by itself and was started again`),
    ],
    problems: [
      ...(verdict.restartTo2xxMs === undefined
        ? [`the API answered no 2xx within ${seconds(RECOVERY_LIMIT_MS)} of PostgreSQL being started again`]
        : []),
      ...(verdict.others.length > 0
        ? [`the API answered other than 503 while PostgreSQL was down: ${verdict.others.slice(0, 3).join(', ')}`]
        : []),
      ...(temporalExited ? ['the Temporal server exited while PostgreSQL was down'] : []),
      ...restarted.map((name) => `${name} exited by itself while PostgreSQL was down`),
    ],
    elapsedMs: performance.now() - started,
  };
}

/**
 * An API process lost: runs started through both APIs, each followed over `GET /runs/:id/events` by one follower
 * on the first API (killed mid-run, then restarted) and one on the second; the first must resume on the second from
 * `Last-Event-ID` and end with the same events as the follower that never lost its API.
 */
async function apiKillPhase(context: Context, runLabels: string[]): Promise<PhaseResult> {
  const { options, stack, say } = context;
  const started = performance.now();
  const [killed, survivor] = stack.apis;
  if (killed === undefined || survivor === undefined) throw new Error('The API phase needs two API processes.');
  say(
    `API kill: ${runLabels.length} runs started through both APIs, followed over SSE on ${killed.name} (SIGKILLed mid-run, restarted) and on ${survivor.name}`,
  );
  const runs = await context.batch('api', runLabels, async (workflowId: string, input: AgentInput, index: number) => {
    const api = stack.apis[index % stack.apis.length]?.url ?? '';
    const response = await fetch(`${api}/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input, run_id: workflowId }),
    });
    if (response.status !== 202) throw new Error(`POST /runs on ${api}: ${response.status} ${await response.text()}`);
  });
  const followDeadline = performance.now() + options.deadline * 1_000;
  const follow = (apis: string[]) =>
    runs.workflowIds.map((runId) => followOverApis({ apis, token: stack.apiToken, runId, deadline: followDeadline }));
  const resumedFollowers = follow([killed.url, survivor.url]);
  const crashFreeFollowers = follow([survivor.url, killed.url]);
  const effectsBefore = await waitMidRun(context, runs);
  const faultAt = performance.now();
  await killed.kill();
  say(`${killed.name} SIGKILLed after ${effectsBefore} side effects of this phase; restarting it`);
  await killed.start();
  const apiRestartMs = performance.now() - faultAt;
  await stack.savePids();
  await followProgress(runs, () => '', say);
  const outcomes = await runs.outcomes;
  const resumed = await Promise.all(resumedFollowers);
  const crashFree = await Promise.all(crashFreeFollowers);
  const followerProblems = resumed.flatMap((follower, index) =>
    compareFollowers(follower, crashFree[index] ?? emptyFollower()).map(
      (problem) => `${runs.workflowIds[index]}: ${problem}`,
    ),
  );
  const reconnects = resumed.flatMap((follower) => follower.reconnects);
  const resumedOnSurvivor = reconnects.filter(
    (reconnect) => reconnect.from === killed.url && reconnect.to === survivor.url,
  );
  const crashFreeReconnects = crashFree.reduce((sum, follower) => sum + follower.reconnects.length, 0);
  const events = resumed.reduce((sum, follower) => sum + follower.events.length, 0);
  const eventsAfterResume = resumed.reduce(
    (sum, follower) =>
      sum + follower.events.filter((event) => event.id > (follower.reconnects[0]?.lastEventId ?? Infinity)).length,
    0,
  );
  const gaps = reconnects.map((reconnect) => reconnect.gapMs).sort((left, right) => left - right);
  return {
    title: `API kill: ${runLabels.length} runs, ${killed.name} SIGKILLed mid-run and restarted, its SSE followers resumed on ${survivor.name}`,
    runs: phaseRuns(context, runLabels, runs, outcomes),
    sideEffects: summarizeSideEffects(readSideEffects(context.sideEffectLog), new Set(runs.workflowIds)),
    notes: [
      `API restart:              ${seconds(apiRestartMs)} from the SIGKILL to its ready line`,
      `SSE followers:            ${resumedOnSurvivor.length}/${resumed.length} resumed on ${survivor.name} with Last-Event-ID ` +
        `(gap p50 ${seconds(gaps[Math.floor(gaps.length / 2)])}, max ${seconds(gaps.at(-1))}); ` +
        `${events} events, ${eventsAfterResume} after the resume; ids contiguous and equal to the crash-free followers': ` +
        `${followerProblems.length === 0 ? 'yes' : 'NO'}`,
      `crash-free followers:     ${crashFree.length} on ${survivor.name}, ${crashFreeReconnects} reconnects` +
        (crashFreeReconnects > 0
          ? ` (the API ended a stream with an error and the follower resumed: ${crashFree
              .flatMap((follower) => follower.otherFrames)
              .slice(0, 2)
              .join('; ')
              .slice(0, 300)})`
          : ''),
      ...followerProblems.slice(0, 5).map((problem) => `  ${problem}`),
      ...coverageNotes(countFeatureCoverage(outcomes)),
    ],
    problems: [
      ...(resumedOnSurvivor.length < resumed.length
        ? [
            `${resumed.length - resumedOnSurvivor.length} follower(s) of ${killed.name} did not resume on ${survivor.name}`,
          ]
        : []),
      ...(followerProblems.length > 0
        ? [`${followerProblems.length} follower problem(s): ${followerProblems[0]}`]
        : []),
    ],
    elapsedMs: performance.now() - started,
  };
}

/** Waits until every run of the batch has performed a side effect (so a fault lands mid-run); returns how many. */
async function waitMidRun(context: Context, runs: RunBatch): Promise<number> {
  const ids = new Set(runs.workflowIds);
  const limit = performance.now() + 60_000;
  const count = () => summarizeSideEffects(readSideEffects(context.sideEffectLog), ids).distinct;
  while (count() < runs.workflowIds.length && performance.now() < limit) await sleep(100);
  return count();
}

/** A probe of both APIs on the phase's first run, answering 2xx before the fault. */
async function startProbe(stack: Stack, runs: RunBatch): Promise<ApiProbe> {
  const probe = new ApiProbe(
    stack.apis.map((api) => api.url),
    stack.apiToken,
    // `/result`, not `GET /runs/:id`: every call it makes is bounded by the API's Temporal deadline, while the
    // state query of `GET /runs/:id` is not (a query waits for a worker), so one in flight when Temporal dies can hang.
    `/runs/${encodeURIComponent(runs.workflowIds[0] ?? '')}/result`,
  );
  probe.start();
  await sleep(500);
  return probe;
}

/** Waits for the probe's first 2xx after `restartAt` (or the recovery limit), stops it, and says what it saw. */
async function probeVerdict(probe: ApiProbe, faultAt: number, restartAt: number): Promise<ProbeVerdict> {
  const limit = performance.now() + RECOVERY_LIMIT_MS;
  while (probe.verdict(faultAt, restartAt).restartTo2xxMs === undefined && performance.now() < limit) await sleep(100);
  await probe.stop();
  return probe.verdict(faultAt, restartAt);
}

function verdictNotes(verdict: ProbeVerdict, part: string): string[] {
  return [
    `API while ${part} down:`.padEnd(26) +
      `${verdict.unavailable} of ${verdict.requests} requests answered 503 (slowest ${seconds(verdict.slowestUnavailableMs)}); ` +
      `first 503 ${verdict.faultTo503Ms === undefined ? 'never' : seconds(verdict.faultTo503Ms)} after the fault` +
      (verdict.others.length > 0 ? `; other answers: ${verdict.others.slice(0, 3).join(', ')}` : '') +
      (verdict.inFlight.length > 0 ? `; in flight at the fault: ${verdict.inFlight.join(', ')}` : ''),
    `API recovered:            first 2xx ${verdict.restartTo2xxMs === undefined ? 'never' : `${seconds(verdict.restartTo2xxMs)} after ${part} was started again, ${seconds(verdict.faultTo2xxMs)} after the fault`}`,
  ];
}

/** The Temporal phase's promise: 503 within about 2 s of the fault, each 503 within about 2 s, then 2xx again by itself. */
function unavailableProblems(verdict: ProbeVerdict): string[] {
  return [
    ...(verdict.faultTo503Ms === undefined ? ['the API never answered 503 while Temporal was down'] : []),
    ...(verdict.faultTo503Ms !== undefined && verdict.faultTo503Ms > FIRST_UNAVAILABLE_WITHIN_MS
      ? [`the first 503 came ${seconds(verdict.faultTo503Ms)} after the fault`]
      : []),
    ...(verdict.slowestUnavailableMs > UNAVAILABLE_WITHIN_MS
      ? [`a 503 took ${seconds(verdict.slowestUnavailableMs)} to come`]
      : []),
    ...(verdict.others.length > 0
      ? [`the API answered other than 503 while Temporal was down: ${verdict.others.slice(0, 3).join(', ')}`]
      : []),
    ...(verdict.restartTo2xxMs === undefined
      ? [`the API answered no 2xx within ${seconds(RECOVERY_LIMIT_MS)} of Temporal being started again`]
      : []),
  ];
}

/** Starts again any worker that exited without being killed; returns their names. */
async function restartExitedWorkers(context: Context): Promise<string[]> {
  const exited = context.stack.workers.filter((worker) => worker.pid() === undefined);
  for (const worker of exited) await worker.start();
  noteWorkerPids(context.stack, context.workerOfPid);
  return exited.map((worker) => worker.name);
}

function noteWorkerPids(stack: Stack, workerOfPid: Map<number, string>): void {
  for (const worker of stack.workers) {
    const pid = worker.pid();
    if (pid !== undefined) workerOfPid.set(pid, worker.name);
  }
}

/** The workers whose chaos tool performed side effects of these runs (or their nested agents). */
function workersThatServed(
  records: ReturnType<typeof readSideEffects>,
  workflowIds: readonly string[],
  workerOfPid: Map<number, string>,
): string[] {
  const ids = new Set(workflowIds);
  const names = new Set<string>();
  for (const record of records) {
    if (record.pid === undefined || !ids.has(record.workflowId.split('/')[0] ?? '')) continue;
    names.add(workerOfPid.get(record.pid) ?? `pid ${record.pid}`);
  }
  return [...names].sort();
}

function phaseRuns(context: Context, runLabels: string[], runs: RunBatch, outcomes: RunOutcome[]): PhaseResult['runs'] {
  return runLabels.map((label, index) => ({
    label,
    workflowId: runs.workflowIds[index] ?? '',
    reference: context.references.get(label) ?? { status: 'stuck' },
    observed: outcomes[index] ?? { status: 'stuck' },
  }));
}

function emptyFollower(): FollowResult {
  return { events: [], reconnects: [], ended: false, otherFrames: [] };
}

/**
 * After Temporal or PostgreSQL is back: records the parts' new pids, waits for the phase's runs to end, and starts
 * again any worker that exited by itself during the outage.
 */
async function settleAfterOutage(
  context: Context,
  runs: RunBatch,
): Promise<{ outcomes: RunOutcome[]; restarted: string[] }> {
  await context.stack.savePids();
  await followProgress(runs, () => '', context.say);
  const outcomes = await runs.outcomes;
  return { outcomes, restarted: await restartExitedWorkers(context) };
}
