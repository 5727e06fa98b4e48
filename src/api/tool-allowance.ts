import { toolMatches } from '../shared/mcp-tool-names';
import { ApiError } from '../http/api-error';

/**
 * Which tools API callers may name (`AGENT_API_ALLOWED_TOOLS`): a request naming another is refused with 403
 * `tool_not_allowed` before anything starts. Names and `<server>__*` patterns; a caller's wildcard passes only when
 * the same wildcard is allowed. Undefined: every tool the worker has.
 */
export function checkToolsAllowed(named: readonly string[], allowed: readonly string[] | undefined): void {
  if (allowed === undefined) return;
  const refused = [...new Set(named.filter((name) => !allowed.some((pattern) => toolMatches(pattern, name))))];
  if (refused.length === 0) return;
  throw new ApiError(
    'tool_not_allowed',
    `This API does not let callers name ${refused.map((name) => `"${name}"`).join(', ')}; allowed: ${allowed.join(', ') || 'none'} (AGENT_API_ALLOWED_TOOLS). Nothing was started.`,
  );
}

/** The tools a run input names: its `tools` and its terminating tools, read leniently (the input is checked later). */
export function toolsNamedBy(input: unknown): string[] {
  if (typeof input !== 'object' || input === null) return [];
  const { tools, terminating } = input as { tools?: unknown; terminating?: { toolIds?: unknown } | null };
  const toolIds = typeof terminating === 'object' && terminating !== null ? terminating.toolIds : undefined;
  return [...namesIn(tools), ...namesIn(toolIds)];
}

function namesIn(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((name): name is string => typeof name === 'string') : [];
}
