import type { Connection } from '@temporalio/client';
import { AGENT_SEARCH_ATTRIBUTES } from '../workflow-contract/search-attributes';
import { CLIENT_SET_SEARCH_ATTRIBUTES } from '../workflow-contract/search-attributes';
import { SearchAttributesMissingError } from './search-attributes-missing-error';

/**
 * What the checks need of a connection: a client's `Connection` and a worker's `NativeConnection` both have it.
 */
export type OperatorConnection = Pick<Connection, 'operatorService'>;

/**
 * The project's search attributes a namespace lacks (every workflow task would fail without them), or undefined when
 * the server will not say.
 */
async function missingSearchAttributes(
  connection: OperatorConnection,
  namespace: string,
): Promise<string[] | undefined> {
  try {
    const response = await connection.operatorService.listSearchAttributes({ namespace });
    const present = new Set(Object.keys(response.customAttributes ?? {}));
    return Object.keys(AGENT_SEARCH_ATTRIBUTES).filter((name) => !present.has(name));
  } catch {
    return undefined;
  }
}

/** The one command that registers `names` (by default all), so a namespace that lacks one added since is told just that one. */
function registrationCommand(
  namespace: string,
  names: readonly string[] = Object.keys(AGENT_SEARCH_ATTRIBUTES),
): string {
  const pairs = names.map(
    (name) => `--name ${name} --type ${AGENT_SEARCH_ATTRIBUTES[name as keyof typeof AGENT_SEARCH_ATTRIBUTES]}`,
  );
  return `temporal operator search-attribute create --namespace ${namespace} ${pairs.join(' ')}`;
}

/**
 * `temporal.api.enums.v1.IndexedValueType` by the CLI's type names. The numbers are the protocol's own (they never
 * change); naming them through `@temporalio/proto` would make that package, which the SDK installs for itself, one
 * the user must install too.
 */
const INDEXED_VALUE_TYPES = { Keyword: 2, Int: 3, Double: 4 } as const;

/**
 * Registers the agent's search attributes a namespace lacks and returns their names, as
 * `temporal operator search-attribute create` does (it needs the same permission); run it once per namespace.
 * A worker's `NativeConnection` does as well as a client's `Connection`:
 *
 * ```ts
 * await registerSearchAttributes(await Connection.connect({ address: 'localhost:7233' }), 'default');
 * ```
 */
export async function registerSearchAttributes(connection: OperatorConnection, namespace: string): Promise<string[]> {
  const missing = (await missingSearchAttributes(connection, namespace)) ?? [];
  if (missing.length === 0) return [];
  const searchAttributes = Object.fromEntries(
    missing.map((name) => [
      name,
      INDEXED_VALUE_TYPES[AGENT_SEARCH_ATTRIBUTES[name as keyof typeof AGENT_SEARCH_ATTRIBUTES]],
    ]),
  );
  await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
  return missing;
}

/**
 * Throws {@link SearchAttributesMissingError} when the namespace lacks any search attribute the agent's runs upsert: its runs
 * would stall, each workflow task failing on them. A server that will not list them (some hosted services) gets
 * `warn` with the command, and the benefit of the doubt.
 */
export async function requireSearchAttributes(
  connection: OperatorConnection,
  namespace: string,
  warn: (message: string) => void,
): Promise<void> {
  const missing = (await missingSearchAttributes(connection, namespace))?.filter(
    (name) => !CLIENT_SET_SEARCH_ATTRIBUTES.includes(name),
  );
  if (missing === undefined) {
    warn(
      `Could not list the search attributes of the namespace "${namespace}"; make sure they are registered: ${registrationCommand(namespace)}`,
    );
  } else if (missing.length > 0) {
    throw new SearchAttributesMissingError({ namespace, missing, command: registrationCommand(namespace, missing) });
  }
}

/**
 * `error`, or {@link SearchAttributesMissingError} (with `error` as its cause) when the namespace lacks the agent's
 * search attributes: a query to a run there fails with the server's `FAILED_PRECONDITION` (its workflow task is
 * failing) or times out, and the reason is the namespace, not the run.
 */
export async function explainedBySearchAttributes(
  connection: OperatorConnection,
  namespace: string,
  error: unknown,
): Promise<unknown> {
  const missing = (await missingSearchAttributes(connection, namespace))?.filter(
    (name) => !CLIENT_SET_SEARCH_ATTRIBUTES.includes(name),
  );
  if (missing === undefined || missing.length === 0) return error;
  return new SearchAttributesMissingError({
    namespace,
    missing,
    command: registrationCommand(namespace, missing),
    cause: error,
  });
}
