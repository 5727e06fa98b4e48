import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Approval ids bound to one pending call (conversation, run, call), checked against the call the chat waits on; signed
 * as the AI SDK signs them when a secret is set (HMAC-SHA256 over the id, call, tool and input digest).
 */

/** The call an approval id stands for. */
export interface BoundCall {
  /** The chat's id: the conversation's `context_id`. */
  contextId: string;
  /** The turn's agent run (its workflow id). */
  runId: string;
  callId: string;
}

/** The prefix of every approval id this module writes. */
const PREFIX = 'apr1_';

/** An approval id longer than this is no id of ours (three identifiers and their JSON). */
const MAX_ID_CHARS = 2_000;

/** The approval id of `call`: the call itself, encoded (base64url of JSON), so any API process reads it back. */
export function approvalIdOf(call: BoundCall): string {
  return PREFIX + Buffer.from(JSON.stringify([call.contextId, call.runId, call.callId]), 'utf8').toString('base64url');
}

/** The call an approval id names; undefined when it is not one of ours. */
export function readApprovalId(approvalId: string): BoundCall | undefined {
  if (!approvalId.startsWith(PREFIX) || approvalId.length > MAX_ID_CHARS) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(approvalId.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 3 || !parsed.every((item) => typeof item === 'string'))
    return undefined;
  const [contextId, runId, callId] = parsed as [string, string, string];
  return { contextId, runId, callId };
}

/**
 * Why an answer cannot decide a call of this chat, or undefined when it may: the id must be ours, name this chat,
 * and the run of the chat's turn in progress. Whether the call still waits is the run's to say (a call decided
 * already is refused by its `decide` update).
 */
export function bindingProblem(
  approvalId: string,
  chat: { contextId: string; activeRunId: string | undefined },
): { problem: string } | { call: BoundCall } {
  const call = readApprovalId(approvalId);
  if (call === undefined) return { problem: 'the approval id is not one this API issued' };
  if (call.contextId !== chat.contextId) return { problem: 'the approval belongs to another chat' };
  if (chat.activeRunId === undefined || call.runId !== chat.activeRunId)
    return { problem: "the approval belongs to a turn that is not this chat's turn in progress" };
  return { call };
}

/** What a signature covers, as the AI SDK signs it. */
export interface SignedApproval {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** The AI SDK's signature of an approval request (`signToolApproval`, format `ai-sdk-tool-approval-v1`). */
export function signApproval(secret: string, approval: SignedApproval): string {
  return createHmac('sha256', secret).update(signedPayload(approval), 'utf8').digest('base64url');
}

/** Whether `signature` is {@link signApproval}'s for `approval`, compared in constant time. */
export function verifyApprovalSignature(secret: string, signature: string, approval: SignedApproval): boolean {
  const expected = Buffer.from(signApproval(secret, approval), 'base64url');
  const given = Buffer.from(signature, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function signedPayload(approval: SignedApproval): string {
  // An undefined input digests as the empty text, as the AI SDK's TextEncoder makes of it.
  const digest = createHash('sha256')
    .update(canonicalJson(approval.input) ?? '', 'utf8')
    .digest('base64url');
  return JSON.stringify([
    'ai-sdk-tool-approval-v1',
    approval.approvalId,
    approval.toolCallId,
    approval.toolName,
    digest,
  ]);
}

/** JSON with object keys sorted, as the AI SDK digests a tool's input (`util/canonical-hash.ts`). */
function canonicalJson(value: unknown): string | undefined {
  if (value === null || value === undefined || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${String(canonicalJson(record[key]))}`)
    .join(',')}}`;
}
