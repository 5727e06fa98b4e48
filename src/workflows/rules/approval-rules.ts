import { z } from 'zod';
import type { ApprovalConfig } from '../../shared/agent-input';
import type { ApprovalDecision, DecideInput, DecidedBy, Decider, PendingApproval } from '../../shared/control';
import type { ToolCall } from '../../shared/messages';
import type { ToolDescription } from '../../shared/activity-types';
import { decideInputSchema } from '../../shared/control';
import { messageTooDeep } from './message-bounds';

/**
 * Whether a call needs approval (from the run's policy, else a human): the run's `approval.tools` names
 * its tool (or says "all", as it does by default with a policy), or the tool asks for it
 * ({@link toolAsksForApproval}).
 */
export function needsApproval(
  call: ToolCall,
  tool: ToolDescription,
  approval: ApprovalConfig | undefined,
  flaggedByWorker: ReadonlySet<string>,
): boolean {
  const listed = approval !== undefined && (approval.tools === 'all' || approval.tools.includes(call.function.name));
  return listed || toolAsksForApproval(call, tool, flaggedByWorker);
}

/**
 * Whether the tool itself asks for approval of this call: it always needs approval, or its
 * `needsApproval` function asked for it for these arguments (`flaggedByWorker`).
 */
export function toolAsksForApproval(
  call: ToolCall,
  tool: ToolDescription,
  flaggedByWorker: ReadonlySet<string>,
): boolean {
  return tool.needsApproval === 'always' || flaggedByWorker.has(call.id);
}

/** The checks a decision must pass; `undefined` when it may be recorded. */
export function checkDecision(
  input: unknown,
  pending: readonly PendingApproval[],
  decided: ReadonlyMap<string, ApprovalDecision>,
  parametersOf: (toolName: string) => Record<string, unknown> | undefined,
): { ok: true; input: DecideInput; pending: PendingApproval } | { ok: false; problem: string } {
  // Before the schema walks it: a decision nested past the input bound would overflow the stack.
  const tooDeep = messageTooDeep(input);
  if (tooDeep !== undefined) return { ok: false, problem: `Malformed decision: ${tooDeep}` };
  const parsed = decideInputSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`);
    return { ok: false, problem: `Malformed decision: ${problems.join('; ')}` };
  }
  const decision = parsed.data;
  const earlier = decided.get(decision.callId);
  if (earlier !== undefined) {
    return {
      ok: false,
      problem: `Call "${decision.callId}" was already decided: ${earlier.decision === 'approve' ? 'approved' : 'denied'} at ${earlier.decidedAt} (via ${earlier.via}).`,
    };
  }
  const waiting = pending.find((approval) => approval.callId === decision.callId);
  if (waiting === undefined) {
    const open = pending.map((approval) => `${approval.callId} (${approval.toolName})`).join(', ');
    return {
      ok: false,
      problem: `No call "${decision.callId}" is waiting for approval. ${open ? `Waiting: ${open}.` : 'Nothing is waiting.'}`,
    };
  }
  if (decision.decision === 'deny' && decision.arguments !== undefined) {
    return { ok: false, problem: 'A denial takes no arguments.' };
  }
  if (decision.arguments !== undefined) {
    const problem = checkArguments(decision.arguments, parametersOf(waiting.toolName));
    if (problem !== undefined)
      return { ok: false, problem: `Arguments for "${waiting.toolName}" do not fit its schema: ${problem}` };
  }
  return { ok: true, input: decision, pending: waiting };
}

/** Checks replacement arguments against the tool's JSON Schema; a problem in words, or undefined. */
export function checkArguments(
  args: Record<string, unknown>,
  parameters: Record<string, unknown> | undefined,
): string | undefined {
  if (parameters === undefined) return undefined;
  const schema = z.fromJSONSchema(parameters as Parameters<typeof z.fromJSONSchema>[0]);
  const validated = schema.safeParse(args);
  if (validated.success) return undefined;
  return validated.error.issues.map((issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`).join('; ');
}

/**
 * Who made a decision, for the record: the run itself for a policy (named) or a timeout; else the sender's own
 * words (`by`, already checked), its surface defaulting to the Temporal message the decision came in, so a
 * signal from `temporal workflow signal` reads `{ via: 'signal' }`.
 */
export function decidedBy(by: Decider | undefined, via: ApprovalDecision['via'], policy?: string): DecidedBy {
  if (via === 'policy') return policy === undefined ? { via } : { name: policy, via };
  if (via === 'timeout') return { via };
  return { ...(by?.name === undefined ? {} : { name: by.name }), via: by?.via ?? via };
}
