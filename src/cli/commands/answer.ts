import { sendUserMessage } from '../../client/run-control';
import { RunEndedError } from '../../client/run-ended-error';
import { explainMissingRun, withAgentClient } from '../agent-client';
import { ExitCode } from '../exit-codes';
import { createOutput } from '../output';
import { watchCommand } from '../steering-commands';
import { UsageError } from '../usage-error';
import { hasRunEnded } from '../../temporal/run-ended';

/**
 * `agent-runner answer`: a person's message to a run. It answers the
 * question `ask_question` put (the run resumes), or joins the conversation
 * before the run's next model call.
 */
export async function answerCommand(
  workflowId: string,
  words: string[],
  options: { json?: boolean },
): Promise<ExitCode> {
  const output = createOutput(options.json === true);
  const content = words.join(' ').trim();
  if (content === '') throw new UsageError({ problems: ['give the message to send, for example: answer <id> "2025"'] });
  await withAgentClient(async (client) => {
    // Temporal would take a signal to an ended run only to drop it: refuse it here, saying why.
    const status = await client.workflow
      .getHandle(workflowId)
      .describe()
      .then((description) => description.status.name)
      .catch(() => undefined);
    const sending =
      status === undefined || !hasRunEnded(status)
        ? sendUserMessage(client, workflowId, content)
        : Promise.reject(new RunEndedError(workflowId));
    await sending.catch((error: unknown) => explainMissingRun(client, workflowId, error));
  });
  if (output.json) output.jsonDocument({ workflowId, sent: true, content });
  else output.line(`Sent to run ${workflowId}. Follow it: ${watchCommand(workflowId)}`);
  return ExitCode.ok;
}
