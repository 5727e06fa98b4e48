import type { Connection } from '@temporalio/client';
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
