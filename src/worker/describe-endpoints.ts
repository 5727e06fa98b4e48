import { endpointTable } from '../activities/model-routes';
import { WORKER_DEFAULTS } from '../shared/defaults/worker';
import type { ModelSettings } from '../shared/model-settings';

/** What a starting worker says of its models: the default model and where it goes, then its named endpoints. */
export function describeModelEndpoints(model: ModelSettings): string {
  const table = endpointTable(model);
  const main = `model ${table.defaultModel} via ${table.primary.baseURL ?? WORKER_DEFAULTS.modelBaseUrl}`;
  const named = Object.entries(model.endpoints ?? {});
  if (named.length === 0) return main;
  const listed = named.map(([name, endpoint]) => `${name} ${endpoint.baseURL ?? WORKER_DEFAULTS.modelBaseUrl}`);
  return `${main} (endpoint "${table.primary.name}"); endpoints ${listed.join(', ')}`;
}
