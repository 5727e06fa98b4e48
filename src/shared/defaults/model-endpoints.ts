/** The names and bounds of a worker's model endpoints and of a run's fallbacks. */

/**
 * The name of the endpoint the worker's top-level model settings (`OPENAI_BASE_URL`, `OPENAI_API_KEY`) describe,
 * reserved so an existing single-endpoint configuration keeps working as it is.
 */
export const DEFAULT_ENDPOINT_NAME = 'default';

/** Bounds that only refuse nonsense: a worker names a handful of endpoints, a run a few fallbacks. */
export const ENDPOINT_BOUNDS = {
  /** Endpoints one worker holds. */
  endpoints: 32,
  /** Characters of an endpoint's name. */
  nameChars: 64,
  /** Models one endpoint lists. */
  models: 256,
  /** Fallbacks one run names: each costs a request when the ones before it fail. */
  fallbacks: 4,
} as const;
