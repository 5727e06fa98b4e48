import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import type { AgentState } from '../shared/agent-result';
import { WORKFLOW_TYPE } from '../shared/defaults/names';
import { isWorkflowNotFound } from '../temporal/errors';
import { runChain, type ChainRunRead } from '../temporal/run-chain';
import { ForkRefusedError } from './fork-refused-error';
import { RunNotFoundError } from './run-not-found-error';
import { replayHistory } from './run-replay';
import { HistoryNotReplayedError } from './history-not-replayed-error';

type History = temporal.api.history.v1.IHistory;

/** One Temporal run of an agent run's chain: its history and the iterations done before it began. */
interface ChainLink {
  runId: string;
  history: History;
  iterationsBefore: number;
}

/** An agent run as it stood when one of its iterations began, read from its recorded history. */
export interface IterationStart {
  /** The run's input as its caller gave it: its first Temporal run's first argument. */
  input: Record<string, unknown>;
  /** The run's state when the iteration began: `messages` is the conversation the model was about to be sent. */
  state: AgentState;
  /** The task queue the run's latest Temporal run is on. */
  taskQueue: string;
}

/**
 * The run as it stood when iteration `atIteration` began, by replaying in this process the history of the Temporal run
 * that holds it (found walking back from the latest): no worker asked, nothing run again. Throws `RunNotFoundError`,
 * or `ForkRefusedError` for an iteration never begun or a history gone or not replayable.
 */
export async function readIterationStart(
  client: Client,
  workflowId: string,
  atIteration: number,
): Promise<IterationStart> {
  if (!Number.isInteger(atIteration) || atIteration < 1)
    throw new ForkRefusedError(
      'iteration',
      `The iteration to fork at must be a whole number from 1; got ${atIteration}.`,
    );
  let latest;
  try {
    latest = await client.workflow.getHandle(workflowId).describe();
  } catch (error) {
    if (isWorkflowNotFound(error)) throw new RunNotFoundError(workflowId);
    throw error;
  }
  // A workflow of another type is no agent run: there is no iteration to fork.
  if (latest.type !== WORKFLOW_TYPE) throw new RunNotFoundError(workflowId);
  const chain = await runChainOf(client, workflowId, latest.runId);
  const first = chain[0]!;
  const input = await startArgument(client, first.history, 0);
  if (!isRecord(input)) throw new RunNotFoundError(workflowId);
  const holder = chain.findLast((link) => link.iterationsBefore < atIteration) ?? first;
  const found = await stateAt(client, workflowId, holder.history, atIteration);
  if (found.state === undefined) {
    const from = first.iterationsBefore + 1;
    throw new ForkRefusedError(
      'iteration',
      found.reached < from
        ? `Run "${workflowId}" has not begun an iteration yet; fork it once it has.`
        : `Run "${workflowId}" began iterations ${from} to ${found.reached}; iteration ${atIteration} is not one of them.`,
    );
  }
  return { input, state: found.state, taskQueue: latest.taskQueue };
}

/** The run's Temporal runs, oldest first, each with its history; a run whose history is gone is refused. */
async function runChainOf(client: Client, workflowId: string, latestRunId: string): Promise<ChainLink[]> {
  const read = async (runId: string | undefined): Promise<ChainRunRead<ChainLink>> => {
    let history: History;
    try {
      history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    } catch (error) {
      if (!isWorkflowNotFound(error)) throw error;
      throw new ForkRefusedError(
        'history-gone',
        `The history of Temporal run ${runId} of "${workflowId}" is gone (past the namespace's retention): the iterations it held cannot be forked.`,
      );
    }
    return {
      run: { runId: runId ?? latestRunId, history, iterationsBefore: await iterationsBeforeRun(client, history) },
      history,
    };
  };
  const chain: ChainLink[] = [];
  for await (const link of runChain(read, latestRunId)) chain.unshift(link);
  return chain;
}

/** Iterations done before a Temporal run began: what its continue-as-new state carries, or, for a fork's first, its fork point's. */
async function iterationsBeforeRun(client: Client, history: History): Promise<number> {
  const carried = await startArgument(client, history, 1);
  if (isRecord(carried) && typeof carried.iteration === 'number') return carried.iteration;
  const input = await startArgument(client, history, 0);
  const forkedFrom = isRecord(input) ? input.forkedFrom : undefined;
  return isRecord(forkedFrom) && typeof forkedFrom.iteration === 'number' ? forkedFrom.iteration - 1 : 0;
}

/** The `index`-th argument a Temporal run was started with, decoded with the client's data converter. */
function startArgument(client: Client, history: History, index: number): Promise<unknown> {
  const payloads = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
  if (index >= payloads.length) return Promise.resolve(undefined);
  return decodeFromPayloadsAtIndex<unknown>(client.options.loadedDataConverter, index, payloads);
}

/** The state when iteration `iteration` began, from a replay of `history`, and the last iteration the replay saw. */
async function stateAt(
  client: Client,
  workflowId: string,
  history: History,
  iteration: number,
): Promise<{ state?: AgentState; reached: number }> {
  let state: AgentState | undefined;
  let reached = 0;
  const reading = replayHistory(client, workflowId, history, (task) => {
    reached = Math.max(reached, task.state.iteration);
    // Each iteration begins in one workflow task, whose appended events show it.
    const began = task.fresh.some((event) => event.type === 'iteration-start' && event.iteration === iteration);
    // Copied now: the replayed workflow goes on to change the arrays its state shares with the run.
    if (state === undefined && began) state = structuredClone(task.state);
  });
  try {
    await reading;
  } catch (error) {
    if (!HistoryNotReplayedError.isInstance(error)) throw error;
    throw new ForkRefusedError(
      'history-not-replayed',
      isNondeterminism(error)
        ? `Run "${workflowId}" was recorded by workflow code that differs from this build's: its history does not replay here (${causeOf(error)}). Fork it with the agent-runner version its worker ran.`
        : `Run "${workflowId}"'s history could not be replayed here (${causeOf(error)}). If it names a payload key, fork with the codec key its payloads were written with.`,
    );
  }
  return state === undefined ? { reached } : { state, reached };
}

/** Whether the replay failed because the workflow code's commands differ from the history's (another build). */
function isNondeterminism(error: HistoryNotReplayedError): boolean {
  return error.cause instanceof Error && error.cause.name === 'DeterminismViolationError';
}

/** Why a replay failed, in a line: the SDK's own error code and message when it gives one (`[TMPRL1100] ...`). */
function causeOf(error: HistoryNotReplayedError): string {
  const cause = error.cause instanceof Error ? error.cause.message : String(error.cause);
  const coded = /\[TMPRL\d+\][^"\n]*/.exec(cause)?.[0];
  return (coded ?? cause.split('\n')[0]!).slice(0, 200);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
