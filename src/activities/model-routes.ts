import { ApplicationFailure } from '@temporalio/activity';
import { DEFAULT_ENDPOINT_NAME } from '../shared/defaults/model-endpoints';
import { FailureType } from '../shared/failure-catalogue';
import type { ModelEndpoint } from '../shared/model-endpoints';
import type { ModelSettings } from '../shared/model-settings';
import type { PriceTable } from '../shared/prices';

/** An endpoint the worker holds, under its name. */
export interface NamedEndpoint extends ModelEndpoint {
  name: string;
}

/** Where one model call goes: an endpoint and the model name sent to it. */
export interface ModelRoute {
  endpoint: NamedEndpoint;
  model: string;
}

/** The worker's endpoints: `default` from the top-level settings first, then the named ones in their order. */
export interface EndpointTable {
  byName: ReadonlyMap<string, NamedEndpoint>;
  /** The endpoint of a run that names none. */
  primary: NamedEndpoint;
  /** The model of a run that names none. */
  defaultModel: string;
}

/** The endpoints `settings` describe; throws when a name is reserved or the default endpoint is not among them. */
export function endpointTable(settings: ModelSettings): EndpointTable {
  const byName = new Map<string, NamedEndpoint>([
    [
      DEFAULT_ENDPOINT_NAME,
      {
        name: DEFAULT_ENDPOINT_NAME,
        defaultModel: settings.defaultModel,
        ...(settings.baseURL === undefined ? {} : { baseURL: settings.baseURL }),
        ...(settings.apiKey === undefined ? {} : { apiKey: settings.apiKey }),
        ...(settings.maxTokensField === undefined ? {} : { maxTokensField: settings.maxTokensField }),
        ...(settings.stream === undefined ? {} : { stream: settings.stream }),
      },
    ],
  ]);
  for (const [name, endpoint] of Object.entries(settings.endpoints ?? {})) {
    if (name === DEFAULT_ENDPOINT_NAME)
      throw new Error(
        `The endpoint name "${DEFAULT_ENDPOINT_NAME}" is the top-level model settings' (OPENAI_BASE_URL): give the endpoint another name.`,
      );
    byName.set(name, { ...endpoint, name });
  }
  const primaryName = settings.defaultEndpoint ?? DEFAULT_ENDPOINT_NAME;
  const primary = byName.get(primaryName);
  if (primary === undefined)
    throw new Error(
      `The default endpoint "${primaryName}" is not one of the worker's: ${[...byName.keys()].join(', ')}.`,
    );
  return { byName, primary, defaultModel: primary.defaultModel ?? primary.models?.[0] ?? settings.defaultModel };
}

/**
 * The route of `reference` (a run's `model`): absent, the default endpoint and model; `<endpoint>` alone or
 * `<endpoint>/<model>`, as {@link namedRoute}; a model an endpoint lists, the first such endpoint; anything else,
 * that model on the default endpoint.
 */
export function routeOf(table: EndpointTable, reference: string | undefined): ModelRoute {
  if (reference === undefined) return { endpoint: table.primary, model: table.defaultModel };
  const named = namedRoute(table, reference, table.defaultModel);
  if (named !== undefined) return named;
  const serving = [...table.byName.values()].find((endpoint) => endpoint.models?.includes(reference) === true);
  return { endpoint: serving ?? table.primary, model: reference };
}

/**
 * The route `reference` names by its endpoint: `<endpoint>` alone, that endpoint's default model (else
 * `sameModel`); `<endpoint>/<model>`, that model there; undefined when it names no endpoint of the worker.
 */
function namedRoute(table: EndpointTable, reference: string, sameModel: string): ModelRoute | undefined {
  const whole = table.byName.get(reference);
  if (whole !== undefined) return { endpoint: whole, model: whole.defaultModel ?? whole.models?.[0] ?? sameModel };
  const slash = reference.indexOf('/');
  const prefixed = slash > 0 ? table.byName.get(reference.slice(0, slash)) : undefined;
  return prefixed === undefined || slash === reference.length - 1
    ? undefined
    : { endpoint: prefixed, model: reference.slice(slash + 1) };
}

/**
 * The routes a call tries in order: the run's model, then each of `fallbacks` (which must name an endpoint; one
 * naming only an endpoint keeps the model). Throws `ModelCall.UnknownEndpoint` for a fallback the worker lacks.
 */
export function routesOf(
  table: EndpointTable,
  model: string | undefined,
  fallbacks: readonly string[] = [],
): [ModelRoute, ...ModelRoute[]] {
  const first = routeOf(table, model);
  const rest = fallbacks.map((fallback) => {
    const route = namedRoute(table, fallback, first.model);
    if (route === undefined)
      throw ApplicationFailure.nonRetryable(
        `The fallback "${fallback}" names no endpoint of this worker: write <endpoint> or <endpoint>/<model> with one of ${[...table.byName.keys()].join(', ')}.`,
        FailureType.modelCallUnknownEndpoint,
      );
    return route;
  });
  return [first, ...rest];
}

/** The price-table name of a route: `<endpoint>/<model>` when the table prices it so, else the model's own. */
export function priceName(prices: PriceTable | undefined, route: ModelRoute): string {
  const qualified = `${route.endpoint.name}/${route.model}`;
  return prices !== undefined && Object.hasOwn(prices, qualified) ? qualified : route.model;
}
