import type { Duration } from '@temporalio/common';
import { msToNumber } from '../shared/duration';
import type { z } from 'zod';
import { ACTIVITY_DEFAULTS } from '../shared/defaults/activities';
import type { TerminateResponse } from './terminate-response';
import type { WaitForInput } from './wait-for-input';
import { requireZod4Parameters } from './zod-version';
import { TOOL_NAME_PATTERN } from '../shared/mcp-tool-names';

/** What a tool's `execute` gets besides its arguments. */
export interface ToolContext {
  /** `workflowId:runId:callId`: the same for every attempt of this call, different for every call; pass it to APIs that deduplicate. */
  idempotencyKey: string;
  workflowId: string;
  runId: string;
  /** The runner's id for this call (`call-<iteration>-<n>`), unique within the run. */
  callId: string;
  /** Attempt number of this execution, starting at 1. */
  attempt: number;
  /** Aborted when the run cancels this call (a terminate, a timeout); pass it on to I/O. */
  signal: AbortSignal;
}

/**
 * What `execute` may return: text for the model, a `TerminateResponse` to end
 * the run, or any JSON-serialisable value (sent to the model as JSON).
 */
export type ToolOutput = string | TerminateResponse | WaitForInput | number | boolean | null | object;

/** A tool the model can call. Create with {@link defineTool}; register on the worker. */
export interface ToolDefinition<Parameters extends z.ZodType = z.ZodType> {
  /** The name the model calls; letters, digits, `_` and `-`, at most 64 characters. */
  name: string;
  /** Tells the model when and how to use the tool. */
  description: string;
  /** The arguments' schema; the JSON Schema the model sees is derived from it. */
  parameters: Parameters;
  execute(args: z.output<Parameters>, context: ToolContext): ToolOutput | Promise<ToolOutput>;
  /** Calling this tool ends the run, its output the response (loop-breaking tools). @default false */
  terminating?: boolean;
  /** Whether a call must be approved before it runs: a flag, or a pure function of the arguments. @default false */
  needsApproval?: boolean | ((args: z.output<Parameters>) => boolean);
  /** Start-to-close timeout of one execution. @default '5 minutes' */
  timeout?: Duration;
  /**
   * How long a call may take in all, retries included. An execution lost to the infrastructure
   * (a worker that died, a missed heartbeat) is retried until then, however often; past it the
   * model is told the call did not finish. @default three times `timeout`
   */
  deadline?: Duration;
  /**
   * Run as a Temporal local activity, with no task-queue round trip: only for fast, idempotent tools, since it
   * sends no heartbeats, reruns when its workflow task fails, holds that task open, and has a short timeout
   * (`ACTIVITY_DEFAULTS.localToolCallTimeout`, at most `localToolMaxTimeout`). @default false
   */
  local?: boolean;
}

/**
 * Declares a tool. Checks the name against what providers accept, so a bad
 * name fails at worker start rather than at the first model call.
 */
export function defineTool<Parameters extends z.ZodType>(
  definition: ToolDefinition<Parameters>,
): ToolDefinition<Parameters> {
  if (!TOOL_NAME_PATTERN.test(definition.name)) {
    throw new TypeError(
      `Tool name "${definition.name}" is not valid: use 1 to 64 letters, digits, "_" or "-" (providers reject others).`,
    );
  }
  if (definition.description.trim() === '') {
    throw new TypeError(
      `Tool "${definition.name}" needs a description: the model decides from it when to call the tool.`,
    );
  }
  requireZod4Parameters(definition.name, definition.parameters);
  for (const [name, value] of [
    ['timeout', definition.timeout],
    ['deadline', definition.deadline],
  ] as const) {
    if (value !== undefined && !(msToNumber(value) > 0)) {
      throw new TypeError(`Tool "${definition.name}": ${name} must be a positive duration such as '30 seconds'.`);
    }
  }
  if (
    definition.local === true &&
    definition.timeout !== undefined &&
    msToNumber(definition.timeout) > msToNumber(ACTIVITY_DEFAULTS.localToolMaxTimeout)
  ) {
    throw new TypeError(
      `Tool "${definition.name}": a local tool must be short; its timeout is at most ${ACTIVITY_DEFAULTS.localToolMaxTimeout} (drop \`local\` for a longer one).`,
    );
  }
  if (
    definition.timeout !== undefined &&
    definition.deadline !== undefined &&
    msToNumber(definition.deadline) < msToNumber(definition.timeout)
  ) {
    throw new TypeError(
      `Tool "${definition.name}": its deadline (all attempts) cannot be shorter than its timeout (one attempt).`,
    );
  }
  return definition;
}
