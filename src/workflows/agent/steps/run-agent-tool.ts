import { runUsage } from '../run-record';
import * as wf from '@temporalio/workflow';
import { FailureType } from '../../../shared/failure-catalogue';
import { INPUT_BOUNDS } from '../../../shared/defaults/input-bounds';
import { WORKFLOW_TYPE } from '../../../shared/defaults/names';
import { ZERO_USAGE, usageSchema, type ToolCall, type Usage } from '../../../shared/messages';
import { treePosition } from '../../../shared/agent-input';
import { type AgentWorkflowResult } from '../../../shared/result-answer';
import { type AgentToolSpec, type ToolCallResult } from '../../../shared/activity-types';
import {
  childInput,
  childLimits,
  childWorkflowId,
  completedChildContent,
  depthRefusal,
  failedChildContent,
  isStopMessage,
  readAgentTask,
  recordChildUsage,
} from '../../rules/nested-agents';
import type { RunContext } from '../run-context';
import type { RunRecord } from '../run-record';
import { recordAgentAnswer } from '../run-transitions';

/** A tool error for the parent's model. */
function errorResult(content: string): ToolCallResult {
  return { content, isError: true, terminate: false };
}

/**
 * Runs a nested agent as a child `agentWorkflow`; its response is the call's result, and every refusal or failure is a
 * tool error, so a child never fails its parent. The child is cancelled with its parent, which waits for it
 * (`WAIT_CANCELLATION_COMPLETED`); a parent terminated in Temporal asks it to cancel (`REQUEST_CANCEL`).
 */
export async function runAgentTool(
  context: RunContext,
  call: ToolCall,
  spec: AgentToolSpec,
  argumentsText: string,
): Promise<ToolCallResult> {
  const { run, input } = context;
  const toolName = call.function.name;
  const tree = treePosition(input);
  const refused = depthRefusal(toolName, tree.depth, tree.maxDepth);
  if (refused !== undefined) return errorResult(refused);
  const task = readAgentTask(argumentsText, INPUT_BOUNDS.textChars);
  if (!task.ok) return errorResult(`Error: the nested agent "${toolName}" needs {"task": "..."}: ${task.problem}`);
  const deadlineMs = context.deadline === undefined ? undefined : Date.parse(context.deadline);
  const limits = childLimits(run.limits.tokenBudget, runUsage(run), deadlineMs, new Date().getTime(), input.costBudget);
  if (!limits.ok)
    return errorResult(`Error: the nested agent "${toolName}" was not started: ${limits.spent} is spent.`);

  const workflowId = childWorkflowId(wf.workflowInfo().workflowId, call.id);
  let handle: wf.ChildWorkflowHandle<(input: unknown) => Promise<AgentWorkflowResult>>;
  try {
    handle = await wf.startChild<(input: unknown) => Promise<AgentWorkflowResult>>(WORKFLOW_TYPE, {
      workflowId,
      args: [childInput(spec, task.task, input, limits, toolName)],
      parentClosePolicy: wf.ParentClosePolicy.REQUEST_CANCEL,
      cancellationType: wf.ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
      staticSummary: `nested agent ${toolName} · depth ${tree.depth + 1}`,
    });
  } catch (error) {
    if (wf.isCancellation(error)) throw error;
    return errorResult(
      `Error: the nested agent "${toolName}" could not start: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const runId = handle.firstExecutionRunId;
  const ids = { iteration: run.iteration, callId: call.id, toolName, workflowId, runId };
  run.events.append('nested-agent-start', { ...ids, depth: tree.depth + 1 });
  // While it runs, the calls it waits on are listed in this run's state and decided from here (`nested-approvals.ts`).
  run.nestedRuns.set(workflowId, { callId: call.id, toolName, approvals: [] });

  try {
    const result = await handle.result();
    const usage = readUsage(result.usage);
    recordChild(run, { runId, toolName, usage });
    const answer = completedChildContent(toolName, result.terminationReason, result.response);
    run.events.append('nested-agent-end', {
      ...ids,
      outcome: answer.cancelled ? 'cancelled' : 'completed',
      terminationReason: result.terminationReason.type,
      usage,
    });
    if (!answer.cancelled) {
      recordAgentAnswer(run, { toolName, stopMessage: isStopMessage(result.terminationReason) });
    }
    return { content: answer.content, isError: answer.cancelled, terminate: false };
  } catch (error) {
    if (!(error instanceof wf.ChildWorkflowFailure)) throw error;
    const cause = error.cause;
    const cancelled = wf.isCancellation(error);
    const type = cancelled
      ? 'Cancelled'
      : cause instanceof wf.ApplicationFailure
        ? (cause.type ?? FailureType.untyped)
        : (cause?.name ?? FailureType.untyped);
    const message = cause?.message ?? error.message;
    const usage =
      cause instanceof wf.ApplicationFailure
        ? readUsage((cause.details?.[0] as { usage?: unknown } | undefined)?.usage)
        : ZERO_USAGE;
    recordChild(run, { runId, toolName, usage });
    run.events.append('nested-agent-end', {
      ...ids,
      outcome: cancelled ? 'cancelled' : 'failed',
      error: { type, message },
      usage,
    });
    // The parent's own stop: it ends now, and closing its batch says the call was cancelled.
    if (cancelled) throw error;
    return errorResult(failedChildContent(toolName, type, message));
  } finally {
    if (run.nestedRuns.delete(workflowId)) context.publish(run);
  }
}

/** A child's usage as it reported it; none when it reported none a parent can read (a child on other code, a failure without details). */
function readUsage(value: unknown): Usage {
  const parsed = usageSchema.safeParse(value);
  return parsed.success ? parsed.data : ZERO_USAGE;
}

function recordChild(run: RunRecord, child: { runId: string; toolName: string; usage: Usage }): void {
  run.nested = recordChildUsage(run.nested, child);
}
