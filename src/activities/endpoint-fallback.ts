import { ApplicationFailure } from '@temporalio/activity';
import { FailureType, type FailureTypeName } from '../shared/failure-catalogue';

/**
 * The failures another endpoint can fix: this one is unreachable, slow, rate-limited, out of credit or overloaded
 * (5xx, 529). A bad request, a context overflow, a refused key or an unknown model would fail anywhere, or says the
 * configuration is wrong: those end the call where they happen.
 */
const ANOTHER_ENDPOINT_FIXES: ReadonlySet<FailureTypeName> = new Set<FailureTypeName>([
  FailureType.modelCallConnectionError,
  FailureType.modelCallConnectionTimeout,
  FailureType.modelCallRequestTimeout,
  FailureType.modelCallRateLimited,
  FailureType.modelCallQuotaExceeded,
  FailureType.modelCallServerError,
]);

/** Whether a call that failed with `failure` goes on to the next endpoint. */
export function fallsBack(failure: unknown): boolean {
  return (
    failure instanceof ApplicationFailure &&
    failure.type !== undefined &&
    failure.type !== null &&
    ANOTHER_ENDPOINT_FIXES.has(failure.type as FailureTypeName)
  );
}
