import type { Client } from '@temporalio/client';
import { API_TEMPORAL_DEADLINE_MS } from '../shared/defaults/api';
import { temporalUnavailable } from '../http/errors';
import { ApiError } from '../http/api-error';

/**
 * Bounds the calls the Temporal server answers by itself (start, describe, signal, list, readiness), so with the
 * server down a request answers 503 `temporal_unavailable` at once instead of after the client's ~20 s of retries;
 * calls that wait for a worker (queries, updates, chat turns) are not bounded.
 */

/**
 * Runs `work` with a gRPC deadline `ms` from now on its Temporal calls and answers {@link temporalUnavailable} when it
 * passes, even between two client retries. The call may still take effect: a retried start then answers 409.
 * @param ms @default {@link API_TEMPORAL_DEADLINE_MS}
 */
export async function withinDeadline<T>(
  client: Client,
  work: () => Promise<T>,
  ms: number = API_TEMPORAL_DEADLINE_MS,
): Promise<T> {
  const bounded = client.withDeadline(Date.now() + ms, work);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    // A little past the deadline, so a call in flight fails with its own DEADLINE_EXCEEDED first.
    timer = setTimeout(() => reject(temporalUnavailable(`no answer within ${ms} ms`)), ms + 100);
  });
  try {
    return await Promise.race([bounded, late]);
  } finally {
    clearTimeout(timer);
    // The losing side's failure is already answered for; keep it from becoming an unhandled rejection.
    bounded.catch(() => undefined);
  }
}

/**
 * Whether Temporal answers for the client's namespace: `DescribeNamespace`,
 * cheap and answered by the frontend alone. Throws {@link temporalUnavailable}
 * otherwise, naming the namespace when the server says it does not exist.
 */
export async function probeTemporal(client: Client, ms: number = API_TEMPORAL_DEADLINE_MS): Promise<void> {
  const namespace = client.options.namespace;
  try {
    await withinDeadline(client, () => client.workflowService.describeNamespace({ namespace }), ms);
  } catch (error) {
    if (ApiError.isInstance(error)) throw error;
    // gRPC NOT_FOUND: the server answers, but every run would fail; not ready either.
    if ((error as { code?: unknown }).code === 5) throw temporalUnavailable(`namespace "${namespace}" does not exist`);
    throw temporalUnavailable(error instanceof Error ? error.message : String(error));
  }
}
