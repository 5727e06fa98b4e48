import { createNamedRegistry, type NamedRegistry } from './named-registry';
import { z } from 'zod';
import { builtOnce } from '../../shared/built-once';
import { APPROVAL_POLICY_REASON_CHARS } from '../../shared/defaults/run-input';
import { INPUT_BOUNDS } from '../../shared/defaults/input-bounds';
import { checkArguments } from './approval-rules';
import { cutReason, messageTooDeep } from './message-bounds';

/**
 * Approval policies: functions registered by name in the worker's workflows module that decide a call needing approval
 * before a person does (`registerApprovalPolicy('small-transfers', (call, params) => ...)`). A policy runs in the
 * workflow, so it must be pure and deterministic; a throw or a malformed decision denies the call and never fails the
 * workflow task.
 */

/** A tool call as an approval policy sees it. A copy: changing it changes nothing in the run. */
export interface ApprovalPolicyCall {
  /** The tool's name. */
  toolName: string;
  /** The model's arguments, parsed; the raw text when they are not JSON. */
  arguments: unknown;
  /** The runner's id of the call (`call-3-1`), as in events, `pendingApprovals` and decisions. */
  callId: string;
  /** The run's model call (1, 2, ...; across continue-as-new) whose answer asked for the call. */
  iteration: number;
  /**
   * Whether the tool itself asks for approval of this call (`needsApproval: true`, or its function
   * returned true for these arguments), rather than only the run's `approval.tools`: a policy that
   * leaves those to a person answers `ask` for them.
   */
  toolAsksForApproval: boolean;
}

/** What a policy decides; `reason` is recorded with the decision (with `ask`, in the `approval-request` event) and, for a denial, sent to the model. */
export type ApprovalPolicyDecision =
  | { decision: 'approve'; reason?: string }
  | { decision: 'deny'; reason?: string }
  /** Run the call with `arguments` instead of the model's; they must fit the tool's schema. */
  | { decision: 'modify'; arguments: Record<string, unknown>; reason?: string }
  /** Leave the call to a human: it waits in `pendingApprovals` as without a policy. */
  | { decision: 'ask'; reason?: string };

/** A named approval policy. `params` is the input's `approval.params`, or `{}`. */
export type ApprovalPolicy = (call: ApprovalPolicyCall, params: Record<string, unknown>) => ApprovalPolicyDecision;

/** The approval policies a workflow knows, by name. */
export type ApprovalPolicyRegistry = NamedRegistry<ApprovalPolicy>;

/** A registry holding `entries`, to which more can be registered. @default no entries */
export function createApprovalPolicyRegistry(entries: Record<string, ApprovalPolicy> = {}): ApprovalPolicyRegistry {
  return createNamedRegistry(
    {
      emptyName: 'an approval policy needs a non-empty name',
      taken: (name) => `an approval policy named "${name}" is already registered; register each name once`,
    },
    entries,
  );
}

/** The workflow bundle's policies; `registerApprovalPolicy` adds to it. */
export const approvalPolicyRegistry = createApprovalPolicyRegistry();

/** Adds a named approval policy; a name can be registered once. */
export function registerApprovalPolicy(name: string, policy: ApprovalPolicy): void {
  approvalPolicyRegistry.register(name, policy);
}

/** The problem with the input's `approval.policy`, with its path, or undefined when it is registered (or absent). */
export function validateApprovalPolicy(name: string | undefined, registry: ApprovalPolicyRegistry): string | undefined {
  if (name === undefined || registry.get(name) !== undefined) return undefined;
  const registered = registry.names().join(', ') || 'none';
  return `approval.policy: no approval policy named "${name}" is registered (registered: ${registered}); register it with registerApprovalPolicy in the worker's workflows module`;
}

/**
 * What the run does with a call after its policy: run it (with other arguments when `modify`), deny it
 * with `reason` (a denial of the policy's, or the policy's failure), or ask a human.
 */
export type PolicyOutcome =
  | { decision: 'approve'; reason?: string }
  | { decision: 'modify'; arguments: Record<string, unknown>; reason?: string }
  | { decision: 'deny'; reason: string }
  | { decision: 'ask'; reason?: string };

const reasonText = builtOnce('approvalPolicies.reasonText', () => z.string().optional());

/** A policy's decision as it must look; strict, so a misspelt field (`args`) is a problem, not silently ignored. */
const policyDecisionSchema = builtOnce('approvalPolicies.policyDecision', () =>
  z.discriminatedUnion('decision', [
    z.strictObject({ decision: z.literal('approve'), reason: reasonText }),
    z.strictObject({ decision: z.literal('deny'), reason: reasonText }),
    z.strictObject({ decision: z.literal('modify'), arguments: z.record(z.string(), z.unknown()), reason: reasonText }),
    z.strictObject({ decision: z.literal('ask'), reason: reasonText }),
  ]),
);

/**
 * Runs the policy `name` on `call` and checks what it returns. Never throws: a missing policy, a
 * throw, a promise (policies decide synchronously), a malformed decision, or replacement arguments
 * that are not a JSON object of at most {@link INPUT_BOUNDS.textChars} characters and
 * {@link INPUT_BOUNDS.depth} levels, or do not fit the tool's JSON Schema (`parameters`), all deny the
 * call with a reason that names the policy and the problem.
 */
export function applyApprovalPolicy(
  name: string,
  registry: ApprovalPolicyRegistry,
  call: ApprovalPolicyCall,
  params: Record<string, unknown>,
  parameters: Record<string, unknown> | undefined,
): PolicyOutcome {
  const failed = (problem: string): PolicyOutcome => ({
    decision: 'deny',
    reason: cut(`approval policy "${name}" failed: ${problem}`),
  });
  const policy = registry.get(name);
  if (policy === undefined) return failed('no policy of that name is registered on this worker');
  let returned: unknown;
  try {
    // Copies: a policy that changes what it was given must not change the run's record or input.
    returned = policy(copyJson(call), copyJson(params));
  } catch (error) {
    return failed(`it threw ${describeThrown(error)}`);
  }
  try {
    return checkPolicyDecision(name, returned, call, parameters, failed);
  } catch (error) {
    // A getter or `toJSON` of what it returned threw while being checked.
    return failed(`its decision could not be read: ${describeThrown(error)}`);
  }
}

/** What `returned` means for the call, or why it means a denial. */
function checkPolicyDecision(
  name: string,
  returned: unknown,
  call: ApprovalPolicyCall,
  parameters: Record<string, unknown> | undefined,
  failed: (problem: string) => PolicyOutcome,
): PolicyOutcome {
  if (typeof (returned as { then?: unknown } | null)?.then === 'function') {
    return failed('it returned a promise; a policy decides synchronously, without awaiting anything');
  }
  const tooDeep = messageTooDeep(returned);
  if (tooDeep !== undefined) return failed(`it returned a malformed decision: ${tooDeep}`);
  const parsed = policyDecisionSchema.safeParse(returned);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'decision'}: ${issue.message}`);
    return failed(
      `it returned a malformed decision (${problems.join('; ')}); expected { decision: "approve" | "deny" | "modify" | "ask", arguments?, reason? }`,
    );
  }
  const verdict = parsed.data;
  const reason = verdict.reason === undefined ? undefined : cut(verdict.reason);
  const withReason = reason === undefined ? {} : { reason };
  switch (verdict.decision) {
    case 'approve':
    case 'ask':
      return { decision: verdict.decision, ...withReason };
    case 'deny':
      return { decision: 'deny', reason: reason ?? `approval policy "${name}" denied the call` };
    case 'modify': {
      const replacement = asJsonObject(verdict.arguments);
      if (typeof replacement === 'string') return failed(`its replacement arguments ${replacement}`);
      const problem = checkArguments(replacement, parameters);
      if (problem !== undefined) {
        return {
          decision: 'deny',
          reason: cut(
            `approval policy "${name}" modified the arguments of "${call.toolName}" to ones that do not fit its schema: ${problem}`,
          ),
        };
      }
      return { decision: 'modify', arguments: replacement, ...withReason };
    }
  }
}

/** `value` as plain JSON (what the tool will receive), or what is wrong with it. */
function asJsonObject(value: Record<string, unknown>): Record<string, unknown> | string {
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    return `are not JSON: ${describeThrown(error)}`;
  }
  if (text.length > INPUT_BOUNDS.textChars)
    return `are ${text.length} characters of JSON, more than ${INPUT_BOUNDS.textChars}`;
  return JSON.parse(text) as Record<string, unknown>;
}

/** A JSON copy; `call` and `params` are JSON already (parsed arguments, the input's params). */
function copyJson<Value>(value: Value): Value {
  return JSON.parse(JSON.stringify(value)) as Value;
}

/** What a policy threw, in words; never throws itself (a thrown value's `toString` may). */
function describeThrown(error: unknown): string {
  try {
    if (error instanceof Error) return `${error.name}: ${error.message}`;
    return typeof error === 'string' ? JSON.stringify(error) : String(error);
  } catch {
    return 'a value that cannot be described';
  }
}

function cut(text: string): string {
  return cutReason(text, APPROVAL_POLICY_REASON_CHARS);
}
