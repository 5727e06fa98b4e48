import { ApplicationFailure, Context } from '@temporalio/activity';
import type { z } from 'zod';
import { ACTIVITY_DEFAULTS, SENT_ARGUMENTS_PREVIEW_CHARS } from '../shared/defaults/activities';
import { DEFAULT_TERMINATE_MESSAGE } from '../shared/defaults/run-input';
import { TOOL_OUTPUT_LIMIT_BYTES } from '../shared/defaults/sizes';
import { FailureType } from '../shared/failure-catalogue';
import { cutToBytes, formatBytes, utf8Bytes } from '../shared/payload-limits';
import { formatSeconds } from '../shared/duration';
import { unknownToolMessage, type ToolCallInput, type ToolCallResult } from '../shared/activity-types';
import type { ToolContext, ToolOutput } from '../tools/define-tool';
import { RetryableToolError } from '../tools/retryable-tool-error';
import { ToolCallLostError } from '../tools/tool-call-lost-error';
import { ToolErrorOutput } from '../tools/tool-error-output';
import { TerminateResponse } from '../tools/terminate-response';
import { WaitForInput } from '../tools/wait-for-input';
import type { ToolRegistry } from '../tools/tool-registry';
import { createRedactor, redactFailure, type Redactor } from '../redaction';
import { AttemptTimedOut, withinAttemptTimeout } from './attempt-timeout';
import { throwIfCancelled } from './cancellation';
import { describeThrown } from './describe-thrown';
import { keepHeartbeating } from './heartbeat';
import { withToolSpan } from '../tracing/genai-spans';

/**
 * The `executeTool` activity. Model mistakes and tool errors come back once as the result text `Error: ...`; only a
 * `RetryableToolError` fails the activity for Temporal to retry. Results and failures are redacted, and output over
 * {@link TOOL_OUTPUT_LIMIT_BYTES} is cut, with a note, to fit a Temporal payload.
 */
export function createToolExecution(
  registry: ToolRegistry,
  redact: Redactor = createRedactor([]),
  heartbeatIntervalMs?: number,
) {
  return function executeTool(input: ToolCallInput): Promise<ToolCallResult> {
    return withToolSpan(input, () => execute(input), redact);
  };

  async function execute(input: ToolCallInput): Promise<ToolCallResult> {
    let result: ToolCallResult;
    try {
      result = await runTool(registry, input, heartbeatIntervalMs);
    } catch (error) {
      throw redactFailure(error, redact);
    }
    // A tool may print the environment or echo a provider's error: no configured secret reaches the history.
    return capOutput(redact.active ? { ...result, content: redact(result.content) } : result);
  }
}

async function runTool(
  registry: ToolRegistry,
  input: ToolCallInput,
  heartbeatIntervalMs: number | undefined,
): Promise<ToolCallResult> {
  const tool = input.allowedTools.includes(input.toolName) ? registry.get(input.toolName) : undefined;
  if (tool === undefined) {
    return { content: unknownToolMessage(input.toolName, input.allowedTools), isError: true, terminate: false };
  }

  const parsedJson = parseArgumentsJson(input.arguments);
  if (!parsedJson.ok) {
    return errorResult(
      `the arguments for "${tool.name}" are not valid JSON (${parsedJson.reason}). You sent ${quoteArguments(input.arguments)}. Send one JSON object that matches the tool's schema.`,
    );
  }
  let validated;
  try {
    validated = tool.parameters.safeParse(parsedJson.value);
  } catch (error) {
    // A refinement or transform of the schema threw: the arguments did not pass, reported once.
    return errorResult(`invalid arguments for "${tool.name}": ${describeThrown(error)}`);
  }
  if (!validated.success) {
    return errorResult(`invalid arguments for "${tool.name}": ${describeIssues(validated.error.issues)}`);
  }

  const context = Context.current();
  // Activities started outside a workflow have no execution; key them by activity id instead.
  const { workflowId, runId } = context.info.workflowExecution ?? { workflowId: context.info.activityId, runId: '' };
  const arguments_ = validated.data;
  const contextFor = (signal: AbortSignal): ToolContext => ({
    // Chosen by the workflow when it scheduled the call, so it is the same on every attempt; called otherwise: workflowId:callId.
    idempotencyKey: input.idempotencyKey ?? `${workflowId}:${input.callId}`,
    workflowId,
    runId,
    callId: input.callId,
    attempt: context.info.attempt,
    signal,
  });

  try {
    const attempt = () => withinAttemptTimeout(context, async (signal) => tool.execute(arguments_, contextFor(signal)));
    // A local activity (`local: true`) does not heartbeat: the server does not track it; its workflow task stands in.
    const output = await (context.info.isLocal
      ? attempt()
      : keepHeartbeating(context, attempt, { intervalMs: heartbeatIntervalMs }));
    if (output instanceof AttemptTimedOut) {
      return errorResult(
        `tool "${tool.name}" did not finish within its timeout (${formatSeconds(output.afterMs)}); it was stopped`,
      );
    }
    // toResult inside the try: an output JSON cannot hold (a cycle, a BigInt) is the tool's error,
    // not an activity failure that would run a tool with side effects again.
    return toResult(output);
  } catch (error) {
    throwIfCancelled(context, error);
    if (ToolCallLostError.isInstance(error)) {
      // Lost with what ran it, like an execution lost with a worker: run again, however often, until the deadline.
      throw ApplicationFailure.retryable(describeThrown(error), FailureType.toolCallLost);
    }
    if (RetryableToolError.isInstance(error)) {
      // Retries of infrastructure failures are unlimited within the call's deadline, so the tool's own
      // requests for a retry are counted here: the last allowed attempt answers the model instead.
      if (context.info.attempt < ACTIVITY_DEFAULTS.toolCallMaxAttempts) {
        throw ApplicationFailure.retryable(describeThrown(error), FailureType.toolCallRetryable);
      }
      return errorResult(`${describeThrown(error)} (gave up after ${context.info.attempt} attempts)`);
    }
    // Whatever the tool threw is its own failure, reported once: never a reason to run it again.
    return errorResult(describeThrown(error));
  }
}

function toResult(output: ToolOutput): ToolCallResult {
  if (output instanceof ToolErrorOutput) return errorResult(String(output.content));
  if (output instanceof WaitForInput) {
    // Plain JavaScript can hand over anything here: a question is text, and no larger than a tool result.
    const question = cutToBytes(String(output.question), TOOL_OUTPUT_LIMIT_BYTES / 2);
    return { content: `Asked the user: ${question}`, isError: false, terminate: false, waitForInput: { question } };
  }
  if (output instanceof TerminateResponse) {
    return {
      content: output.message === undefined ? DEFAULT_TERMINATE_MESSAGE : String(output.message),
      isError: false,
      terminate: true,
    };
  }
  const content = typeof output === 'string' ? output : (JSON.stringify(output) ?? 'null');
  return { content, isError: false, terminate: false };
}

/** The result with its content cut to what a Temporal payload can carry, saying so at the end. */
export function capOutput(result: ToolCallResult): ToolCallResult {
  const bytes = utf8Bytes(result.content);
  if (bytes <= TOOL_OUTPUT_LIMIT_BYTES) return result;
  const note = `\n[cut: the tool returned ${formatBytes(bytes)}; a tool result keeps at most ${formatBytes(TOOL_OUTPUT_LIMIT_BYTES)}]`;
  return { ...result, content: cutToBytes(result.content, TOOL_OUTPUT_LIMIT_BYTES - utf8Bytes(note)) + note };
}

function errorResult(reason: string): ToolCallResult {
  return { content: `Error: ${reason}`, isError: true, terminate: false };
}

/**
 * The arguments the model sent, quoted (the first {@link SENT_ARGUMENTS_PREVIEW_CHARS} characters): the request
 * carries `{}` in their place (`wire-message.ts`), so the error is where the model sees what it wrote.
 */
function quoteArguments(text: string): string {
  const characters = [...text];
  const preview = characters.slice(0, SENT_ARGUMENTS_PREVIEW_CHARS).join('');
  return characters.length > SENT_ARGUMENTS_PREVIEW_CHARS ? `${JSON.stringify(preview)}...` : JSON.stringify(preview);
}

function parseArgumentsJson(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  // Some providers send "" for a call without arguments.
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'arguments'}: ${issue.message}`)
    .join('; ');
}
