import { AGENT_SEARCH_ATTRIBUTES } from '../workflow-contract/search-attributes';

/** `--search-attribute` flags for `temporal server start-dev`. */
export function searchAttributeFlags(): string[] {
  return Object.entries(AGENT_SEARCH_ATTRIBUTES).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]);
}
