import {
  DEFAULT_CIRCUIT_BREAKER_THRESHOLD,
  DEFAULT_MAX_INVOCATIONS,
  REQUIRE_TOOL_CALL_MESSAGE,
  type ParsedAgentInput,
  type ToolDescription,
} from '../../shared';
import type { TurnPolicy } from './model-turn';

/**
 * What a run derives once from its input and the worker's tool catalog,
 * before its first model call: pure functions, so the workflow only calls them.
 */

/** The tools of one run: what the worker's catalog says of them, and which of them end the run. */
export interface RunTools {
  /** The catalog's descriptions of the tools the input names. */
  descriptions: ToolDescription[];
  /** Tools whose call ends the run: terminating in the catalog, or listed in `terminating.toolIds`. */
  terminating: ReadonlySet<string>;
}

/** The message injected when the model answers with text where a tool call is required. */
export interface NudgeInjection {
  /** `nudge` for an autonomous run (`terminating`), `error_context` for `requireToolCall`. */
  kind: 'nudge' | 'error_context';
  message: string;
  /** Such answers allowed in a row before the run fails. */
  consecutiveNudges: number;
}

/**
 * The run's tools from the worker's catalog, or the names the input asks for
 * that the worker does not register (the run fails on those).
 */
export function selectRunTools(
  catalog: readonly ToolDescription[],
  input: Pick<ParsedAgentInput, 'tools' | 'terminating'>,
): { ok: true; tools: RunTools } | { ok: false; unknown: string[]; registered: string[] } {
  const registered = catalog.map((tool) => tool.name);
  const unknown = input.tools.filter((name) => !registered.includes(name));
  if (unknown.length > 0) return { ok: false, unknown, registered };
  const descriptions = catalog.filter((tool) => input.tools.includes(tool.name));
  const terminating = new Set([
    ...descriptions.filter((tool) => tool.terminating).map((tool) => tool.name),
    ...(input.terminating?.toolIds ?? []),
  ]);
  return { ok: true, tools: { descriptions, terminating } };
}

/** What the run injects when the model answers with text but must call a tool; `undefined` when it need not. */
export function nudgeInjectionFor(
  input: Pick<ParsedAgentInput, 'terminating' | 'requireToolCall' | 'circuitBreaker'>,
): NudgeInjection | undefined {
  // requireToolCall shares the nudge rule: its error context is a nudge by another name.
  return input.terminating !== undefined
    ? { kind: 'nudge' as const, message: input.terminating.nudgeMessage, consecutiveNudges: input.terminating.consecutiveNudges }
    : input.requireToolCall
      ? {
          kind: 'error_context' as const,
          message: REQUIRE_TOOL_CALL_MESSAGE,
          consecutiveNudges: input.circuitBreaker?.threshold ?? DEFAULT_CIRCUIT_BREAKER_THRESHOLD,
        }
      : undefined;
}

/** The rules that apply to a text answer in this run (see `decideModelTurn`). */
export function turnPolicyFor(input: Pick<ParsedAgentInput, 'restrictOutput'>, nudgeInjection: NudgeInjection | undefined): TurnPolicy {
  return {
    ...(nudgeInjection === undefined ? {} : { nudge: { consecutiveNudges: nudgeInjection.consecutiveNudges } }),
    ...(input.restrictOutput?.enabled ? { restriction: input.restrictOutput } : {}),
  };
}

/** Model calls the run may make: the smaller of the two limits the input can set, else the default. */
export function effectiveMaxInvocations(input: Pick<ParsedAgentInput, 'maxInvocations' | 'terminating'>): number {
  const limits = [input.maxInvocations, input.terminating?.maxInvocations].filter(
    (limit): limit is number => limit !== undefined,
  );
  return limits.length === 0 ? DEFAULT_MAX_INVOCATIONS : Math.min(...limits);
}
