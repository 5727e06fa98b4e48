import os from 'node:os';
import { decideToolCall } from '../../client/run-control';
import { deciderNameSchema, type ApprovalDecision, type DecideInput } from '../../shared/control';
import { explainMissingRun, withAgentClient } from '../agent-client';
import { ExitCode } from '../exit-codes';
import { oneLine } from '../one-line';
import { createOutput, type Output } from '../output';
import { UsageError } from '../usage-error';

/**
 * `agent-runner approve` and `deny`: the `decide` update, recorded with `by: { name, via: 'cli' }` (`--as`, else the OS
 * user); a refusal exits 4.
 */
export async function decideCommand(
  workflowId: string,
  decision: Omit<DecideInput, 'by'>,
  options: { json?: boolean; as?: string },
): Promise<ExitCode> {
  const output = createOutput(options.json === true);
  const by = { name: options.as ?? osUser(), via: 'cli' as const };
  const recorded = await withAgentClient((client) =>
    decideToolCall(client, workflowId, { ...decision, by }).catch((error: unknown) =>
      explainMissingRun(client, workflowId, error),
    ),
  );
  if (output.json) output.jsonDocument(recorded);
  else printDecision(recorded, workflowId, output);
  return ExitCode.ok;
}

/** The operating system's user, checked as a decider's name is: a name the run would refuse is a usage error. */
export function osUser(): string {
  let name: string;
  try {
    name = os.userInfo().username;
  } catch {
    throw new UsageError({ problems: ['--as: the operating system names no user here; give --as <name>.'] });
  }
  if (!deciderNameSchema.safeParse(name).success)
    throw new UsageError({
      problems: [
        `--as: the operating system's user name ${JSON.stringify(name)} is not a valid name; give --as <name>.`,
      ],
    });
  return name;
}

function printDecision(recorded: ApprovalDecision, workflowId: string, output: Output): void {
  const verb = recorded.decision === 'approve' ? 'Approved' : 'Denied';
  output.line(`${verb} ${recorded.toolName} (call ${recorded.callId}) in run ${workflowId}.`);
  output.line(`  arguments: ${oneLine(recorded.arguments)}`);
  if (recorded.originalArguments !== undefined)
    output.line(`  the model asked with: ${oneLine(recorded.originalArguments)}`);
  if (recorded.reason !== undefined) output.line(`  reason: ${recorded.reason}`);
  if (recorded.by?.name !== undefined) output.line(`  by: ${recorded.by.name} (${recorded.by.via})`);
}
