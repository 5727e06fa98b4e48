import type { RunLimits, SetLimitsInput, TokenBudget } from '../../shared/control';
import type { Usage } from '../../shared/messages';
import { setLimitsInputSchema } from '../../shared/control';

/** Which limit stops the next model call, if any. */
export type LimitBreach =
  | { kind: 'invocations'; limit: number }
  | { kind: 'tokens'; measure: 'total' | 'prompt' | 'completion'; used: number; limit: number };

/** Checked before every model call: the invocation cap, then each token budget. */
export function findLimitBreach(invocations: number, usage: Usage, limits: RunLimits): LimitBreach | undefined {
  if (invocations >= limits.maxInvocations) return { kind: 'invocations', limit: limits.maxInvocations };
  for (const [key, measure, used] of tokenMeasures(usage)) {
    const limit = limits.tokenBudget[key];
    if (limit !== undefined && used >= limit) return { kind: 'tokens', measure, used, limit };
  }
  return undefined;
}

/** Each token budget's key, its measure, and what `usage` spent of it. */
export function tokenMeasures(usage: Usage): [keyof TokenBudget, 'total' | 'prompt' | 'completion', number][] {
  return [
    ['maxTotal', 'total', usage.totalTokens],
    ['maxPrompt', 'prompt', usage.promptTokens],
    ['maxCompletion', 'completion', usage.completionTokens],
  ];
}

/** Validates `setLimits` against what the run has already spent; the new limits, or the problem. */
export function applyLimitChange(
  input: unknown,
  current: RunLimits,
  invocations: number,
): { ok: true; limits: RunLimits } | { ok: false; problem: string } {
  const parsed = setLimitsInputSchema.safeParse(input);
  if (!parsed.success) {
    return {
      ok: false,
      problem: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('; '),
    };
  }
  const change: SetLimitsInput = parsed.data;
  if (change.maxInvocations !== undefined && change.maxInvocations < invocations) {
    return {
      ok: false,
      problem: `maxInvocations ${change.maxInvocations} is below the ${invocations} model calls already made; give at least ${invocations} (which stops the run before its next call).`,
    };
  }
  return {
    ok: true,
    limits: {
      maxInvocations: change.maxInvocations ?? current.maxInvocations,
      tokenBudget: { ...current.tokenBudget, ...change.tokenBudget },
    },
  };
}
