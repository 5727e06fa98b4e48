import { answerElicitation } from '../../client/run-control';
import type { AnswerElicitationInput } from '../../shared/mcp-elicitation-answer';
import { explainMissingRun, withAgentClient } from '../agent-client';
import { ExitCode } from '../exit-codes';
import { createOutput } from '../output';
import { UsageError } from '../usage-error';
import { osUser } from './decide';

/** How `agent-runner answer` answers an MCP server's question. */
export interface ElicitationAnswerOptions {
  /** `--accept [fields]`: true without fields, else the fields as JSON text. */
  accept?: string | true;
  decline?: true;
  cancel?: true;
  /** `--id`: the question's id; left out, the only waiting one. */
  id?: string;
  as?: string;
  json?: boolean;
}

/** Whether the options answer an MCP server's question rather than send a message. */
export function answersElicitation(options: ElicitationAnswerOptions): boolean {
  return options.accept !== undefined || options.decline === true || options.cancel === true;
}

/**
 * `agent-runner answer <id> --accept '{...}' | --decline | --cancel`: an MCP server's question answered through the
 * `answerElicitation` update, recorded with who answered (`--as`, else the operating system's user); a refusal (no
 * such question, fields that do not fit) exits 4 with the run's reason.
 */
export async function answerElicitationCommand(
  workflowId: string,
  words: string[],
  options: ElicitationAnswerOptions,
): Promise<ExitCode> {
  const output = createOutput(options.json === true);
  const chosen = [options.accept !== undefined, options.decline === true, options.cancel === true].filter(Boolean);
  const problems = [
    ...(chosen.length > 1 ? ['give one of --accept, --decline and --cancel'] : []),
    ...(words.length > 0 ? ['an answer to an MCP question takes no message text: give its fields to --accept'] : []),
  ];
  const content = typeof options.accept === 'string' ? readFields(options.accept, problems) : undefined;
  if (problems.length > 0) throw new UsageError({ problems });
  const answer: AnswerElicitationInput = {
    ...(options.id === undefined ? {} : { elicitationId: options.id }),
    action: options.accept !== undefined ? 'accept' : options.decline === true ? 'decline' : 'cancel',
    ...(content === undefined ? {} : { content }),
    by: { name: options.as ?? osUser(), via: 'cli' },
  };
  const answered = await withAgentClient((client) =>
    answerElicitation(client, workflowId, answer).catch((error: unknown) =>
      explainMissingRun(client, workflowId, error),
    ),
  );
  if (output.json) output.jsonDocument(answered);
  else
    output.line(
      `Answered ${answered.elicitationId} (call ${answered.callId}) in run ${workflowId}: ${answered.action}.`,
    );
  return ExitCode.ok;
}

/** `--accept`'s fields: a JSON object; a problem is added otherwise. */
function readFields(text: string, problems: string[]): AnswerElicitationInput['content'] {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as AnswerElicitationInput['content'];
  } catch {
    // named below
  }
  problems.push(`--accept: give the fields as a JSON object, for example --accept '{"name": "Ada"}'`);
  return undefined;
}
