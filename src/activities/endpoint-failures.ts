import { ApplicationFailure } from '@temporalio/activity';
import type { EndpointFailure } from '../shared/activity-types';
import type { ModelRoute } from './model-routes';

/** What a result records of an endpoint the call left: its name, the model, the failure's type and message. */
export function endpointFailureOf(route: ModelRoute, error: unknown): EndpointFailure {
  const failure = error instanceof ApplicationFailure ? error : undefined;
  return {
    endpoint: route.endpoint.name,
    model: route.model,
    type: failure?.type ?? 'Error',
    message: error instanceof Error ? error.message : String(error),
  };
}

/**
 * The failure a call ends with after leaving `failures` behind: the same type, retry and details, its message naming
 * the endpoints tried before (their messages were redacted when they were raised). Anything else is returned as is.
 */
export function afterFallbacks(error: unknown, failures: readonly EndpointFailure[]): unknown {
  if (failures.length === 0 || !(error instanceof ApplicationFailure)) return error;
  const before = failures.map((failure) => `"${failure.endpoint}" (${failure.type})`).join(', ');
  return ApplicationFailure.create({
    type: error.type ?? undefined,
    message: `${error.message} Endpoints tried before: ${before}.`,
    nonRetryable: error.nonRetryable === true,
    nextRetryDelay: error.nextRetryDelay ?? undefined,
    details: [...(error.details ?? []), { fallbacks: failures }],
    cause: error.cause,
  });
}
