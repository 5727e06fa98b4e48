import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type * as WorkerModule from '@temporalio/worker';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow';
import { CLIENT_DEFAULTS } from '../shared/defaults/client';
import type { AgentState } from '../shared/agent-result';
import type { RunEvent } from '../shared/run-events';
import type { ReplayedTask, ReplayReaderSinks } from '../workflows/replay-reader-interceptors';
import { HistoryNotReplayedError } from './history-not-replayed-error';

/** The agent's workflows, and the module that reads a replayed run's state: `src/...` from source, `dist/...` once built. */
const WORKFLOWS_PATH: string = require.resolve('../workflows');
const READER_INTERCEPTORS_PATH: string = require.resolve('../workflows/replay-reader-interceptors');
const PRELOADED_MODULES: string[] = [require.resolve('../shared/built-once')];

/** A replayed run: what its history left, and why Temporal closed it when it closed the run without asking it. */
export interface ReplayedRun {
  state: AgentState;
  events: RunEvent[];
  /** Events of the run's log that were no longer kept before the first of `events`. */
  missed: number;
  closedByTemporal?: string;
}

let readerBundle: Promise<WorkerModule.WorkflowBundleWithSourceMap> | undefined;
const replayed = new Map<string, Promise<ReplayedRun | undefined>>();

/**
 * A closed run's `state` and event log, replayed from its history here so no billed query or worker is needed;
 * undefined for a non-agent run, `HistoryNotReplayedError` for another build's history.
 */
export function replayClosedRun(client: Client, workflowId: string, runId: string): Promise<ReplayedRun | undefined> {
  const key = `${client.options.namespace}/${workflowId}/${runId}`;
  const known = replayed.get(key);
  if (known !== undefined) return known;
  const reading = replay(client, workflowId, runId);
  replayed.set(key, reading);
  reading.catch(() => replayed.delete(key));
  // The oldest answer leaves first: a reader keeps only the newest few runs it replayed.
  if (replayed.size > CLIENT_DEFAULTS.replayedRunsKept) replayed.delete(replayed.keys().next().value!);
  return reading;
}

async function replay(client: Client, workflowId: string, runId: string): Promise<ReplayedRun | undefined> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const events: RunEvent[] = [];
  let last: ReplayedTask | undefined;
  await replayHistory(client, workflowId, history, (task) => {
    for (const event of task.fresh) events.push(event);
    last = task;
  });
  if (last === undefined) return undefined;
  const read: ReplayedRun = { state: last.state, events, missed: last.missed };
  const closedByTemporal = closeReason(history.events?.at(-1));
  return closedByTemporal === undefined ? read : { ...read, closedByTemporal };
}

/**
 * Replays one Temporal run's history (closed, or recorded so far) in this process against the agent's workflow code,
 * with the client's data converter, handing `onTask` the run's state and the events it appended after each workflow
 * task.
 */
export async function replayHistory(
  client: Client,
  workflowId: string,
  history: temporal.api.history.v1.IHistory,
  onTask: (task: ReplayedTask) => void,
): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the worker package loads only when a run is replayed
  const worker = require('@temporalio/worker') as typeof WorkerModule;
  await decodeStartInput(client, history);
  quietRuntime(worker);
  const sinks: WorkerModule.InjectedSinks<ReplayReaderSinks> = {
    replayReader: { snapshot: { fn: (_info, task) => onTask(task), callDuringReplay: true } },
  };
  const workflowBundle = await bundle(worker);
  try {
    await worker.Worker.runReplayHistory(
      {
        workflowBundle,
        sinks,
        ...(client.options.dataConverter === undefined ? {} : { dataConverter: client.options.dataConverter }),
      },
      history,
      workflowId,
    );
  } catch (error) {
    throw new HistoryNotReplayedError(workflowId, error);
  }
}

/**
 * Throws the data converter's own error when this process cannot decode the run's input (a key it does not hold):
 * checked before the replay, whose worker would log the same failure as an error line of its own.
 */
async function decodeStartInput(client: Client, history: temporal.api.history.v1.IHistory): Promise<void> {
  const payloads = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  await decodeArrayFromPayloads(client.options.loadedDataConverter, payloads);
}

/** Why Temporal closed a run without asking it, from its history's last event; undefined for any other close. */
function closeReason(event: temporal.api.history.v1.IHistoryEvent | undefined): string | undefined {
  if (event?.workflowExecutionTerminatedEventAttributes)
    return event.workflowExecutionTerminatedEventAttributes.reason || 'terminated';
  if (event?.workflowExecutionTimedOutEventAttributes) return 'the run timed out';
  return undefined;
}

/**
 * A process that has no Temporal runtime yet gets one that logs warnings only and leaves signals alone: a replay's
 * worker would otherwise print its lifecycle lines into a command's output. A process that installs its own
 * (`Runtime.install`) does so before it reads a closed run.
 */
function quietRuntime(worker: typeof WorkerModule): void {
  if (worker.Runtime._instance !== undefined) return;
  worker.Runtime.install({ logger: new worker.DefaultLogger('WARN'), shutdownSignals: [] });
}

function bundle(worker: typeof WorkerModule): Promise<WorkerModule.WorkflowBundleWithSourceMap> {
  readerBundle ??= worker.bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: [READER_INTERCEPTORS_PATH],
    preloadModules: PRELOADED_MODULES,
    logger: new worker.DefaultLogger('WARN'),
  });
  readerBundle.catch(() => (readerBundle = undefined));
  return readerBundle;
}
