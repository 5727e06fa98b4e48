import { DEFAULT_MAX_INVOCATIONS } from '../../shared/defaults/run-input';
import { type ParsedAgentInput } from '../../shared/agent-input';
import { type ToolDescription } from '../../shared/activity-types';

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

/** Model calls the run may make: the smaller of the two limits the input can set, else the default. */
export function effectiveMaxInvocations(input: Pick<ParsedAgentInput, 'maxInvocations' | 'terminating'>): number {
  const limits = [input.maxInvocations, input.terminating?.maxInvocations].filter(
    (limit): limit is number => limit !== undefined,
  );
  return limits.length === 0 ? DEFAULT_MAX_INVOCATIONS : Math.min(...limits);
}
