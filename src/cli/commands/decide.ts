import { decideToolCall } from '../../client/run-control';
import type { ApprovalDecision, DecideInput } from '../../shared/control';
import { explainMissingRun, withAgentClient } from '../agent-client';
import { ExitCode } from '../exit-codes';
import { oneLine } from '../one-line';
import { createOutput, type Output } from '../output';

/**
 * `agent-runner approve` and `agent-runner deny`: decide a pending call
 * through the `decide` update, which answers the decision as the run
 * recorded it, or refuses it with the run's reason (exit code 4).
 */
export async function decideCommand(
  workflowId: string,
  decision: DecideInput,
  options: { json?: boolean },
): Promise<ExitCode> {
  const output = createOutput(options.json === true);
  const recorded = await withAgentClient((client) =>
    decideToolCall(client, workflowId, decision).catch((error: unknown) =>
      explainMissingRun(client, workflowId, error),
    ),
  );
  if (output.json) output.jsonDocument(recorded);
  else printDecision(recorded, workflowId, output);
  return ExitCode.ok;
}

function printDecision(recorded: ApprovalDecision, workflowId: string, output: Output): void {
  const verb = recorded.decision === 'approve' ? 'Approved' : 'Denied';
  output.line(`${verb} ${recorded.toolName} (call ${recorded.callId}) in run ${workflowId}.`);
  output.line(`  arguments: ${oneLine(recorded.arguments)}`);
  if (recorded.originalArguments !== undefined)
    output.line(`  the model asked with: ${oneLine(recorded.originalArguments)}`);
  if (recorded.reason !== undefined) output.line(`  reason: ${recorded.reason}`);
}
