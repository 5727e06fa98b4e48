import { readFile } from 'node:fs/promises';
import { forkRun, type ForkEdit, type ForkInputChanges } from '../../client/fork-run';
import { withAgentClient } from '../agent-client';
import type { ExitCode } from '../exit-codes';
import { followRun } from '../follow-run';
import { createOutput } from '../output';
import { statusCommand, terminateCommand, watchCommand } from '../steering-commands';
import { UsageError } from '../usage-error';

/** `agent-runner fork`'s options. */
export interface ForkOptions {
  /** The iteration whose start the fork takes the conversation at. */
  at: number;
  message?: string;
  /** `<callId>=<file>`: the call's new result is the file's text. */
  result?: string[];
  /** A file whose text is the fork's instructions. */
  instructions?: string;
  model?: string;
  tools?: string[];
  maxInvocations?: number;
  /** More input fields to change, as a JSON object (`null` removes one). */
  input?: Record<string, unknown>;
  id?: string;
  json?: boolean;
}

/**
 * `agent-runner fork <run> --at <k>`: start a new run from the run's conversation as it stood when iteration k
 * began, edited, and follow it live like `run`; the source is untouched.
 */
export async function forkCommand(sourceId: string, options: ForkOptions): Promise<ExitCode> {
  const output = createOutput(options.json === true);
  const edit = await forkEdit(options);
  return withAgentClient(async (client) => {
    const fork = await forkRun(client, sourceId, {
      atIteration: options.at,
      edit,
      ...(options.id === undefined ? {} : { workflowId: options.id }),
    });
    output.notice(
      `Forked ${sourceId} at iteration ${options.at}: run ${fork.workflowId} (Temporal run id ${fork.runId}).`,
    );
    output.notice(`  follow it: ${watchCommand(fork.workflowId)}`);
    output.notice(`  status:    ${statusCommand(fork.workflowId)}`);
    output.notice(`  stop it:   ${terminateCommand(fork.workflowId)}`);
    const interactive = process.stdin.isTTY === true;
    return followRun(client, fork.workflowId, { output, policy: interactive ? 'ask' : 'terminate' });
  });
}

/** The edit the options ask for; files that cannot be read and malformed `--result` values are usage errors. */
async function forkEdit(options: ForkOptions): Promise<ForkEdit> {
  const problems: string[] = [];
  const toolResults: Record<string, string> = {};
  for (const pair of options.result ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0 || at === pair.length - 1) {
      problems.push(`--result ${pair}: give <callId>=<file>`);
      continue;
    }
    const text = await readText(pair.slice(at + 1), `--result ${pair}`, problems);
    if (text !== undefined) toolResults[pair.slice(0, at)] = text;
  }
  const instructions =
    options.instructions === undefined ? undefined : await readText(options.instructions, '--instructions', problems);
  if (problems.length > 0) throw new UsageError({ problems });
  const input: ForkInputChanges = {
    ...(options.input as ForkInputChanges | undefined),
    ...(instructions === undefined ? {} : { instructions }),
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.tools === undefined ? {} : { tools: options.tools }),
    ...(options.maxInvocations === undefined ? {} : { maxInvocations: options.maxInvocations }),
  };
  return {
    ...(Object.keys(toolResults).length === 0 ? {} : { toolResults }),
    ...(options.message === undefined ? {} : { message: options.message }),
    ...(Object.keys(input).length === 0 ? {} : { input }),
  };
}

async function readText(file: string, option: string, problems: string[]): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    problems.push(`${option}: cannot read ${file} (${error instanceof Error ? error.message : String(error)})`);
    return undefined;
  }
}
