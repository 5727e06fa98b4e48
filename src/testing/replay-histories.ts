import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { HistoryAndWorkflowId } from '@temporalio/common';
import { Worker, type ReplayResult, type ReplayWorkerOptions } from '@temporalio/worker';
import { AgentRunnerPlugin } from '../worker/plugin';

/** What {@link replayAgentHistories} replays, and against which workflow code. */
export interface ReplayAgentHistoriesOptions {
  /**
   * Histories to replay, each with the workflow id it ran under (a nested agent's commands carry ids derived from
   * its parent's, so its history replays only under its own). A history is the JSON of `temporal workflow show
   * --output json` or the Temporal UI's download, parsed, or a `History` from `client.workflow.getHandle(id).fetchHistory()`.
   */
  histories?: readonly HistoryAndWorkflowId[];
  /** A directory of `*.json` histories, replayed in name order, each under its file name without `.json` as workflow id. */
  historiesDir?: string;
  /** Your workflows module, as your worker's `workflowsPath`. @default the agent's own workflows (`agent-runner/workflow`) */
  workflowsPath?: string;
  /** Your worker's plugins. @default an `AgentRunnerPlugin` without tools (replay runs no activity) */
  plugins?: ReplayWorkerOptions['plugins'];
  /** Any other replay worker options (`bundlerOptions`, `interceptors`, `dataConverter`, ...). */
  replayOptions?: Omit<ReplayWorkerOptions, 'workflowsPath' | 'plugins'>;
}

/**
 * Replays recorded histories against the current workflow code, as a worker with the agent's plugin runs them:
 * a change that would break runs in flight (a new timer, a reordered activity) shows as a `DeterminismViolationError`
 * in the history's result. Returns one result per history, in order; `error` is set on each that failed.
 *
 * ```ts
 * const results = await replayAgentHistories({ historiesDir: 'test/histories', workflowsPath: require.resolve('./workflows') });
 * expect(results.filter((result) => result.error !== undefined)).toEqual([]);
 * ```
 *
 * It is `Worker.runReplayHistories` with the plugin in place: the plugin supplies the sinks the agent's workflows
 * call and, without `workflowsPath`, the agent's workflows themselves. Give your own plugins when your workflows
 * need theirs; include an `AgentRunnerPlugin` among them.
 */
export async function replayAgentHistories(options: ReplayAgentHistoriesOptions): Promise<ReplayResult[]> {
  const histories = [
    ...(options.histories ?? []),
    ...(options.historiesDir === undefined ? [] : await historiesIn(options.historiesDir)),
  ];
  if (histories.length === 0)
    throw new Error(
      'replayAgentHistories: no histories to replay (give histories, or a historiesDir with *.json files).',
    );
  const workerOptions: ReplayWorkerOptions = {
    ...options.replayOptions,
    ...(options.workflowsPath === undefined ? {} : { workflowsPath: options.workflowsPath }),
    plugins: options.plugins ?? [replayPlugin()],
  };
  const results: ReplayResult[] = [];
  for await (const result of Worker.runReplayHistories(workerOptions, histories)) results.push(result);
  return results;
}

/** The `*.json` histories in `directory`, by name, each under its file name as workflow id. */
async function historiesIn(directory: string): Promise<HistoryAndWorkflowId[]> {
  const files = (await readdir(directory)).filter((file) => file.endsWith('.json')).sort();
  return Promise.all(
    files.map(async (file) => ({
      workflowId: path.basename(file, '.json'),
      history: JSON.parse(await readFile(path.join(directory, file), 'utf8')) as HistoryAndWorkflowId['history'],
    })),
  );
}

/** A plugin for replay only: replay runs no activity, so it needs no tools, no reachable model and no stream listener. */
function replayPlugin(): AgentRunnerPlugin {
  return new AgentRunnerPlugin({
    tools: [],
    model: { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'unused-in-replay', defaultModel: 'unused-in-replay' },
    streamListener: false,
  });
}
