import OpenAI from 'openai';
import { createRedactor, urlCredentials, urlCredentialsProblem, type Redactor } from '../redaction';
import { DEFAULT_ENDPOINT_NAME } from '../shared/defaults/model-endpoints';
import type { ModelSettings } from '../shared/model-settings';
import { endpointTable, type EndpointTable, type NamedEndpoint } from './model-routes';

/** What a model activity reaches the provider with, and what keeps its secrets out of failures. */
export interface ModelClient {
  client: OpenAI;
  /** The client's base URL, as failures name it. */
  baseURL: string;
  /** Removes the configured secrets from what a failure quotes. */
  redact: Redactor;
}

/** The worker's endpoints, each with its own client, and one redactor for all their secrets. */
export interface EndpointClients {
  table: EndpointTable;
  /** The client of an endpoint of `table`. */
  clientOf(endpoint: NamedEndpoint): ModelClient;
  redact: Redactor;
}

/** The redactor for failures raised with `settings`: every endpoint's key, URL credentials and `secrets`. */
export function redactorFor(settings: ModelSettings): Redactor {
  const endpoints = Object.values(settings.endpoints ?? {});
  return createRedactor([
    settings.apiKey,
    ...urlCredentials(settings.baseURL ?? ''),
    ...endpoints.flatMap((endpoint) => [endpoint.apiKey, ...urlCredentials(endpoint.baseURL ?? '')]),
    ...(settings.secrets ?? []),
  ]);
}

/**
 * The `openai` client of the default endpoint, without client-side retries, and the redactor for its failures.
 * Throws at once when `settings.baseURL` carries credentials.
 */
export function createModelClient(settings: ModelSettings): ModelClient {
  const { table, clientOf } = createEndpointClients(settings);
  return clientOf(table.primary);
}

/**
 * A client for each endpoint of `settings` (`callModel`, and the side texts of `text-completion.ts`), without
 * client-side retries. Throws at once when an endpoint's URL carries credentials or the table is wrong.
 */
export function createEndpointClients(settings: ModelSettings): EndpointClients {
  const table = endpointTable(settings);
  const redact = redactorFor(settings);
  const clients = new Map<string, ModelClient>();
  for (const endpoint of table.byName.values()) {
    const problem =
      endpoint.baseURL === undefined
        ? undefined
        : urlCredentialsProblem(
            endpoint.name === DEFAULT_ENDPOINT_NAME ? 'baseURL' : `endpoints.${endpoint.name}.baseURL`,
            endpoint.baseURL,
          );
    if (problem !== undefined) throw new Error(problem);
    const client = new OpenAI({
      apiKey: endpoint.apiKey ?? 'unused',
      baseURL: endpoint.baseURL,
      // Temporal owns retry: a retry here would hide failures from the history and the retry policy.
      maxRetries: 0,
      ...(endpoint.timeoutMs === undefined ? {} : { timeout: endpoint.timeoutMs }),
    });
    clients.set(endpoint.name, { client, baseURL: client.baseURL, redact });
  }
  return {
    table,
    redact,
    clientOf(endpoint) {
      const found = clients.get(endpoint.name);
      if (found === undefined) throw new Error(`No client for the endpoint "${endpoint.name}".`);
      return found;
    },
  };
}
