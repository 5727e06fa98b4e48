import { msToNumber } from '../../../shared/duration';
import * as wf from '@temporalio/workflow';
import { ACTIVITY_DEFAULTS } from '../../../shared/defaults/activities';
import { type AssistantMessage, type ToolCall } from '../../../shared/messages';
import { type ToolCallInput, type ToolCallResult, type ToolDescription } from '../../../shared/activity-types';
import { localToolActivities, toolActivities } from '../activities';
import { decideCall } from './await-approval';
import { answerContextRelease, workflowToolNamed } from './context-release';
import { needsApproval, toolAsksForApproval } from '../../rules/approval-rules';
import { runAgentTool } from './run-agent-tool';
import { endCallElicitations } from './mcp-elicitations';
import { heartbeatOptions, type RunContext } from '../run-context';
import { describeActivity } from '../run-record';
import { appendToolCallEnd, appendToolCallStart } from '../tool-call-events';
import { describeToolFailure, summarizeToolCall, unknownToolResult } from '../tool-results';
import { withCallArguments } from '../../rules/transcript';
import { replaceMessage } from '../run-transitions';

/** One attempt's timeout and the call's deadline, from what the tool declares. */
function callTimeouts(
  description: ToolDescription,
  local: boolean,
): { startToCloseTimeout: number; scheduleToCloseTimeout: number } {
  const timeoutMs =
    description.timeoutMs ??
    msToNumber(local ? ACTIVITY_DEFAULTS.localToolCallTimeout : ACTIVITY_DEFAULTS.toolCallTimeout);
  const deadlineMs = description.deadlineMs ?? timeoutMs * ACTIVITY_DEFAULTS.toolCallDeadlineFactor;
  return { startToCloseTimeout: timeoutMs, scheduleToCloseTimeout: Math.max(deadlineMs, timeoutMs) };
}

/**
 * Runs the call's activity: a local one for a local tool, a regular one otherwise. Same input,
 * same result, same failures (`ActivityFailure`) either way.
 */
function runToolActivity(
  context: RunContext,
  description: ToolDescription,
  summary: string,
  input: ToolCallInput,
): Promise<ToolCallResult> {
  const local = description.local === true;
  const options = { summary, ...callTimeouts(description, local), ...(local ? {} : heartbeatOptions(context)) };
  return local
    ? localToolActivities.executeTool.executeWithOptions(options, [input])
    : toolActivities.executeTool.executeWithOptions(options, [input]);
}

/**
 * The call's idempotency key: its workflow, its Temporal run and its runner id. The run id keeps
 * it unique when a reset runs an iteration again (runner ids count the same way twice); a call's
 * attempts never cross a Temporal run, so every attempt has the same key.
 */
function idempotencyKeyOf(call: ToolCall): { idempotencyKey: string } {
  const { workflowId, runId } = wf.workflowInfo();
  return { idempotencyKey: `${workflowId}:${runId}:${call.id}` };
}

/**
 * Executes one tool call: an unknown tool gets an error, a call needing approval is decided first (and runs with the
 * approver's arguments), and a failure after retries goes back to the model as a tool error.
 */
export async function executeToolCall(
  context: RunContext,
  call: ToolCall,
  runTools: readonly ToolDescription[],
  flagged: ReadonlySet<string>,
): Promise<ToolCallResult> {
  const { run, input } = context;
  const workflowTool = workflowToolNamed(context, call.function.name);
  const description = runTools.find((tool) => tool.name === call.function.name) ?? workflowTool;
  if (description === undefined) return unknownToolResult(call.function.name, input.tools);

  let argumentsText = call.function.arguments;
  if (needsApproval(call, description, input.approval, flagged)) {
    const decision = await decideCall(context, call, description, toolAsksForApproval(call, description, flagged));
    if (decision.decision === 'deny') {
      return { content: `Denied: ${decision.reason ?? 'the call was not approved'}`, isError: true, terminate: false };
    }
    if (decision.originalArguments !== undefined) {
      argumentsText = JSON.stringify(decision.arguments);
      const batch = run.openBatch;
      if (batch !== undefined) {
        const assistant = run.messages[batch.assistantIndex] as AssistantMessage;
        replaceMessage(run, batch.assistantIndex, withCallArguments(assistant, call.id, argumentsText));
      }
    }
  }

  describeActivity(run, `iteration ${run.iteration}: running ${call.function.name}`);
  const startedAt = new Date().getTime();
  appendToolCallStart(run, call, argumentsText);
  run.toolCallsExecuted += 1;
  let result: ToolCallResult;
  try {
    // Tools the workflow answers itself run no activity: `context_release`, and a nested agent, which runs
    // as a child workflow (`run-agent-tool.ts`).
    if (description === workflowTool) result = answerContextRelease(context, call, argumentsText);
    else if (description.agent !== undefined)
      result = await runAgentTool(context, call, description.agent, argumentsText);
    else
      result = await runToolActivity(
        context,
        description,
        summarizeToolCall({ ...call, function: { ...call.function, arguments: argumentsText } }, run.iteration),
        {
          toolName: call.function.name,
          callId: call.id,
          arguments: argumentsText,
          allowedTools: input.tools,
          ...idempotencyKeyOf(call),
        },
      );
  } catch (error) {
    // Only a failed activity is the call's outcome; anything else is a bug of the workflow, not the tool's.
    if (wf.isCancellation(error) || !(error instanceof wf.ActivityFailure)) throw error;
    // The call's deadline passed without a finished attempt: the model hears of it as a tool error.
    result = { content: `Error: ${describeToolFailure(call.function.name, error)}`, isError: true, terminate: false };
  }
  // A question the server asked during the call no longer waits once the call is over.
  endCallElicitations(run, call.id, () => context.publish(run));
  appendToolCallEnd(run, call, new Date().getTime() - startedAt, result);
  return result;
}
