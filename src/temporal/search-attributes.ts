/**
 * The custom search attributes of agent runs. Registered when the project
 * starts a dev server; production servers register them once (README).
 */
export const AGENT_SEARCH_ATTRIBUTES = {
  AgentStatus: 'Keyword',
  AgentIterations: 'Int',
  AgentTotalTokens: 'Int',
  AgentPendingApprovals: 'Int',
  AgentTerminationReason: 'Keyword',
} as const;

/** `--search-attribute` flags for `temporal server start-dev`. */
export function searchAttributeFlags(): string[] {
  return Object.entries(AGENT_SEARCH_ATTRIBUTES).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]);
}
