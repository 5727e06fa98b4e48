import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { AGENT_SEARCH_ATTRIBUTES } from './search-attributes';

/**
 * The project's search attributes a namespace lacks, or undefined when the
 * server would not say (some hosted services do not answer this call).
 * Runs upsert these attributes; on a namespace without them every workflow
 * task would fail, so the worker checks before it starts.
 */
export async function missingSearchAttributes(connection: Connection, namespace: string): Promise<string[] | undefined> {
  try {
    const response = await connection.operatorService.listSearchAttributes({ namespace });
    const present = new Set(Object.keys(response.customAttributes ?? {}));
    return Object.keys(AGENT_SEARCH_ATTRIBUTES).filter((name) => !present.has(name));
  } catch {
    return undefined;
  }
}

/** The one command that registers them all. */
export function registrationCommand(namespace: string): string {
  const pairs = Object.entries(AGENT_SEARCH_ATTRIBUTES).map(([name, type]) => `--name ${name} --type ${type}`);
  return `temporal operator search-attribute create --namespace ${namespace} ${pairs.join(' ')}`;
}

const INDEXED_TYPES = {
  Keyword: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Int: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT,
} as const;

/**
 * Registers the attributes a namespace lacks (for dev servers the demo reuses;
 * production namespaces are registered by their operators). Returns what it added.
 */
export async function registerMissingSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const missing = (await missingSearchAttributes(connection, namespace)) ?? [];
  if (missing.length === 0) return [];
  const searchAttributes = Object.fromEntries(
    missing.map((name) => [name, INDEXED_TYPES[AGENT_SEARCH_ATTRIBUTES[name as keyof typeof AGENT_SEARCH_ATTRIBUTES]]]),
  );
  await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
  return missing;
}
