import { z } from 'zod';
import { builtOnce } from './built-once';
import { INPUT_BOUNDS } from './defaults/input-bounds';

/**
 * What callers send to a running run — approvals, termination, limits — and
 * what the run records about it. Plain JSON, validated with zod.
 */

/**
 * A decider's name: a principal of the HTTP API, a CLI user (`--as`), or what a client passes. Untrusted text that
 * ends in logs and events, so short and plain: letters, digits, and `. _ - @ + : / \\` and spaces inside.
 */
export const deciderNameSchema = builtOnce('control.deciderName', () =>
  z
    .string()
    .min(1, 'give a name')
    .max(INPUT_BOUNDS.deciderNameChars, `at most ${INPUT_BOUNDS.deciderNameChars} characters`)
    .regex(
      /^[\p{L}\p{N}](?:[\p{L}\p{N} ._@+:/\\-]*[\p{L}\p{N}._@+:/\\-])?$/u,
      'letters, digits and . _ - @ + : / \\ only (spaces inside), starting with a letter or digit',
    ),
);

/**
 * Who sends a decision, as the sender says; the HTTP API sets its authenticated principal whatever the body says,
 * and a decision without it is recorded as sent by its Temporal message (`{ via: 'signal' }`). @public
 */
export const deciderSchema = builtOnce('control.decider', () =>
  z.strictObject({
    name: deciderNameSchema.optional(),
    via: z.enum(['api', 'cli', 'client']).optional(),
  }),
);
export type Decider = z.infer<typeof deciderSchema>;

/**
 * Who made a recorded decision: `via` the surface (`api`, `cli`, `client`), the Temporal message a sender that
 * said nothing used (`signal`, `update`), or the run itself (`policy`, `timeout`); `name` the principal, user or
 * client name, or the approval policy.
 */
export interface DecidedBy {
  name?: string;
  via: 'api' | 'cli' | 'client' | 'signal' | 'update' | 'policy' | 'timeout';
}

/** Arguments an approver puts in place of the model's: a JSON object. */
const replacementArguments = builtOnce('control.replacementArguments', () => z.record(z.string(), z.unknown()));

/** Signal `approve`. Exported for whoever documents or validates the shape. @public */
export const approveInputSchema = builtOnce('control.approveInput', () =>
  z.strictObject({
    callId: z.string().min(1),
    /** Replaces the model's arguments; checked against the tool's schema. */
    arguments: replacementArguments.optional(),
    /** Who decides, as the sender says. */
    by: deciderSchema.optional(),
  }),
);
export type ApproveInput = z.infer<typeof approveInputSchema>;

/** Signal `deny`. Exported for whoever documents or validates the shape. @public */
export const denyInputSchema = builtOnce('control.denyInput', () =>
  z.strictObject({
    callId: z.string().min(1),
    /** Sent to the model as `Denied: <reason>`. */
    reason: z.string().optional(),
    /** Who decides, as the sender says. */
    by: deciderSchema.optional(),
  }),
);
export type DenyInput = z.infer<typeof denyInputSchema>;

/** Update `decide`: either decision, answered with the decision as recorded. */
export const decideInputSchema = builtOnce('control.decideInput', () =>
  z.strictObject({
    callId: z.string().min(1),
    decision: z.enum(['approve', 'deny']),
    arguments: replacementArguments.optional(),
    reason: z.string().optional(),
    /** Who decides, as the sender says. */
    by: deciderSchema.optional(),
  }),
);
export type DecideInput = z.infer<typeof decideInputSchema>;

/** A call waiting for a decision. */
export interface PendingApproval {
  callId: string;
  toolName: string;
  /** The model's arguments, parsed (or the raw text when they are not JSON). */
  arguments: unknown;
  /** Workflow time, ISO 8601. */
  requestedAt: string;
  /**
   * Set when a nested agent's run waits for it, not this run: that run's workflow id and the agent tool that
   * started it. Decide it here, with this `callId`: the decision is forwarded to that run.
   */
  run?: { workflowId: string; toolName: string };
}

/**
 * An MCP server's question a nested agent's run (or a deeper one) waits on, as its parent lists it: answer it on
 * `workflowId`, the run that waits, with `elicitationId` (`answerElicitation`, `POST /runs/:run_id/answer`).
 */
export interface NestedQuestion {
  /** The nested agent's run that waits for the answer. */
  workflowId: string;
  /** The call of that run during which the server asked. */
  callId: string;
  elicitationId: string;
  server: string;
  question: string;
  /** Workflow time, ISO 8601. */
  askedAt: string;
}

/** Signal `nestedApprovals`: a nested agent's run tells its parent every call it (and its own children) waits on. Internal to the runner. */
export interface NestedApprovalsInput {
  /** The nested agent's workflow id. */
  workflowId: string;
  approvals: PendingApproval[];
  /** The MCP questions it and its own children wait on; absent from runs that report approvals only. */
  questions?: NestedQuestion[];
}

/** A decision as the run recorded it. */
export interface ApprovalDecision {
  callId: string;
  toolName: string;
  decision: 'approve' | 'deny';
  /** The arguments the tool runs with (approved), or was asked with (denied). */
  arguments: unknown;
  /** Present when the approver replaced the model's arguments. */
  originalArguments?: unknown;
  reason?: string;
  decidedAt: string;
  /** How it came: from a human (`signal`, `update`), a timeout, or the run's approval policy (`policy`). */
  via: 'signal' | 'update' | 'timeout' | 'policy';
  /** The approval policy that decided, when `via` is `policy`. */
  policy?: string;
  /**
   * Who decided: the API's principal, the CLI's user, a client's name, the policy; or only how it came.
   * Always set by this version; absent in decisions recorded before decisions named who made them.
   */
  by?: DecidedBy;
}

/**
 * The fields of a recorded {@link ApprovalDecision} as zod describes them: one statement for the `approval-decision`
 * event and the HTTP API's answer to approve and deny.
 */
export function approvalDecisionFields() {
  return {
    callId: z.string(),
    toolName: z.string(),
    decision: z.enum(['approve', 'deny']),
    arguments: z.unknown(),
    originalArguments: z.unknown().optional(),
    reason: z.string().optional(),
    decidedAt: z.string(),
    via: z.enum(['signal', 'update', 'timeout', 'policy']),
    /** The approval policy that decided, when `via` is `policy`. */
    policy: z.string().optional(),
    by: z
      .object({
        name: z.string().optional(),
        via: z.enum(['api', 'cli', 'client', 'signal', 'update', 'policy', 'timeout']),
      })
      .describe(
        "Who decided: `via` the surface (`api`, `cli`, `client`), the Temporal message of a sender that named none (`signal`, `update`), or the run itself (`policy`, `timeout`); `name` the API principal, the CLI user, the client's name, or the policy. Absent only in decisions recorded before decisions named who made them.",
      )
      .optional(),
  };
}

/** Signal `terminate`: stop now, gracefully. Exported for whoever documents or validates the shape. @public */
export const terminateInputSchema = builtOnce('control.terminateInput', () =>
  z.strictObject({ reason: z.string().optional() }),
);
export type TerminateInput = z.infer<typeof terminateInputSchema>;

/** Token budgets of a run; reaching one fails the run with `TokenBudgetExhausted`. */
export const tokenBudgetSchema = builtOnce('control.tokenBudget', () =>
  z.strictObject({
    maxTotal: z.number().int().positive().optional(),
    maxPrompt: z.number().int().positive().optional(),
    maxCompletion: z.number().int().positive().optional(),
  }),
);
export type TokenBudget = z.infer<typeof tokenBudgetSchema>;

/** Update `setLimits`: raise or lower the limits of a running run. */
export const setLimitsInputSchema = builtOnce('control.setLimitsInput', () =>
  z
    .strictObject({
      maxInvocations: z.number().int().positive().optional(),
      tokenBudget: tokenBudgetSchema.optional(),
    })
    .refine((input) => input.maxInvocations !== undefined || input.tokenBudget !== undefined, {
      message: 'give maxInvocations, tokenBudget or both',
    }),
);
export type SetLimitsInput = z.infer<typeof setLimitsInputSchema>;

/** The limits in force; what `setLimits` answers. */
export interface RunLimits {
  maxInvocations: number;
  tokenBudget: TokenBudget;
}

/** Query `events` arguments: events after cursor `after` (a `seq`), at most `limit`. */
export interface EventsQueryInput {
  after?: number;
  limit?: number;
}
