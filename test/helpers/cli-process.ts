import path from 'node:path';
import { PROJECT_ROOT, cleanEnv, runProcess, temporalCli, type Finished } from './processes';
import { testServerAddress } from './test-env';

/** The package's `agent-runner` command, run with this Node as a user's shell would run the installed bin. */
export const AGENT_RUNNER = path.join(PROJECT_ROOT, 'bin', 'agent-runner.js');

/** A fresh shell's environment pointed at the suite's server and the worker on `taskQueue`, plus `extra`. */
export function agentRunnerEnv(taskQueue: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return cleanEnv({
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    TEMPORAL_ADDRESS: testServerAddress(),
    AGENT_TASK_QUEUE: taskQueue,
    ...extra,
  });
}

/** Runs `agent-runner <args>` to its end (stdin is not a terminal) against the worker on `taskQueue`. */
export function runAgentRunner(taskQueue: string, args: string[], extra: NodeJS.ProcessEnv = {}): Promise<Finished> {
  return runProcess(process.execPath, [AGENT_RUNNER, ...args], {
    env: agentRunnerEnv(taskQueue, extra),
    timeoutMs: 90_000,
  });
}

/** Runs the suite's Temporal CLI (`temporal <args>`) against the suite's server to its end. */
export async function runTemporalCli(args: string[]): Promise<Finished> {
  return runProcess(await temporalCli(), [...args, '--address', testServerAddress()]);
}
