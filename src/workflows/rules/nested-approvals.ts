import { INPUT_BOUNDS } from '../../shared/defaults/input-bounds';
import { type NestedQuestion, type PendingApproval } from '../../shared/control';

/**
 * Nested agents' approvals, as pure rules: a parent lists the calls its
 * children wait on under ids of its own (`<parent call id>/<child call id>`,
 * so they never clash with its own calls), and routes a decision on such an
 * id back to the child. Deeper runs nest the same way, one prefix a level.
 */

/** A nested agent running now, as its parent knows it. */
export interface NestedRun {
  /** The parent's call that started it. */
  callId: string;
  /** The agent tool's name. */
  toolName: string;
  /** What it last reported waiting on, in its own ids. */
  approvals: PendingApproval[];
  /** The MCP questions it last reported waiting on (`nested-questions.ts`). */
  questions?: NestedQuestion[];
}

/** The separator between a parent's call id and its child's in a listed approval's id. */
const SEPARATOR = '/';

/** Approvals of running nested agents as the parent lists them: ids prefixed, each naming the run that waits. */
export function listedNestedApprovals(nestedRuns: ReadonlyMap<string, NestedRun>): PendingApproval[] {
  return [...nestedRuns.entries()].flatMap(([workflowId, nested]) =>
    nested.approvals.map((approval) => ({
      ...approval,
      callId: `${nested.callId}${SEPARATOR}${approval.callId}`,
      // A deeper run's approval already names the run that waits; keep it.
      run: approval.run ?? { workflowId, toolName: nested.toolName },
    })),
  );
}

/** Where a decision on `callId` goes when a nested agent waits on it: the child's workflow id and the id there. */
export function routeDecision(
  callId: unknown,
  nestedRuns: ReadonlyMap<string, NestedRun>,
): { workflowId: string; callId: string; approval: PendingApproval } | undefined {
  if (typeof callId !== 'string') return undefined;
  const at = callId.indexOf(SEPARATOR);
  if (at <= 0) return undefined;
  const own = callId.slice(0, at);
  const rest = callId.slice(at + 1);
  for (const [workflowId, nested] of nestedRuns) {
    if (nested.callId !== own) continue;
    const approval = nested.approvals.find((pending) => pending.callId === rest);
    return approval === undefined ? undefined : { workflowId, callId: rest, approval };
  }
  return undefined;
}

/**
 * A `nestedApprovals` signal checked: from a nested agent this run started, with a list of pending approvals
 * of plain shape and bounded size. Anything else is ignored (it can only come from outside the runner).
 */
export function readNestedApprovals(
  input: unknown,
  nestedRuns: ReadonlyMap<string, NestedRun>,
): { workflowId: string; approvals: PendingApproval[] } | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const { workflowId, approvals } = input as { workflowId?: unknown; approvals?: unknown };
  if (typeof workflowId !== 'string' || !nestedRuns.has(workflowId)) return undefined;
  if (!Array.isArray(approvals) || approvals.length > INPUT_BOUNDS.toolCallsPerMessage * INPUT_BOUNDS.tools)
    return undefined;
  const valid = approvals.every(
    (approval: unknown) =>
      typeof approval === 'object' &&
      approval !== null &&
      typeof (approval as PendingApproval).callId === 'string' &&
      typeof (approval as PendingApproval).toolName === 'string' &&
      typeof (approval as PendingApproval).requestedAt === 'string',
  );
  return valid ? { workflowId, approvals: approvals as PendingApproval[] } : undefined;
}

/** A key that changes when the list of waiting calls does: a run reports to its parent only then. */
export function approvalsKey(approvals: readonly PendingApproval[]): string {
  return approvals.map((approval) => approval.callId).join('\n');
}
