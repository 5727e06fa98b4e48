import { withAgentClient } from '../agent-client';
import { loadAgentInput } from '../agent-input-options';
import type { ExitCode } from '../exit-codes';
import { followRun } from '../follow-run';
import { createOutput } from '../output';
import { announceStart, startRun, type StartOptions } from './start-run';

/**
 * `agent-runner run`: start a run and follow it live to its end; the exit
 * code says how it ended. Ctrl-C on a terminal asks before terminating;
 * without a terminal (a script, CI) it terminates gracefully at once.
 */
export async function runCommand(messageWords: string[], options: StartOptions): Promise<ExitCode> {
  const output = createOutput(options.json === true);
  const input = await loadAgentInput(messageWords, options);
  return withAgentClient(async (client, config) => {
    const run = await startRun(client, config, input, options);
    const interactive = process.stdin.isTTY === true;
    announceStart(run, config.taskQueue, output, [
      interactive
        ? '  Ctrl-C here asks whether to terminate it; a second Ctrl-C stops following and leaves it running.'
        : '  Ctrl-C here terminates it gracefully; a second Ctrl-C stops following and leaves it running.',
    ]);
    return followRun(client, run.workflowId, { output, policy: interactive ? 'ask' : 'terminate' });
  });
}
