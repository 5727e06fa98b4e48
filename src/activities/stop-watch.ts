import type { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { ACTIVITY_DEFAULTS } from '../shared/defaults/activities';

/**
 * Whether an activity's run has ended or asked it to stop, by describing the run (not billed, unlike the heartbeats
 * that alone carry cancellation); one description per run and interval serves all its activities in the process.
 */

/** What a description says of one activity. */
type StopState = 'running' | 'stop';

/** `PENDING_ACTIVITY_STATE_CANCEL_REQUESTED` and `WORKFLOW_EXECUTION_STATUS_RUNNING` of Temporal's API enums. */
const CANCEL_REQUESTED = 3;
const RUNNING = 1;

/** Descriptions in flight or just made, by run: the activities of one run share them. */
const recent = new Map<string, { at: number; description: Promise<DescribedRun | undefined> }>();

interface DescribedRun {
  running: boolean;
  cancelRequested: Set<string>;
}

/**
 * Checks the run every `ACTIVITY_DEFAULTS.cancelCheckIntervalMs` while the activity runs, and calls `beat` once when
 * it should stop; returns the function that ends the watch. An activity without a client (a test environment) is
 * not watched. A description that fails is tried again at the next check.
 */
export function watchForStop(context: Context, beat: () => void): () => void {
  const client = clientOf(context);
  if (client === undefined || context.info.isLocal) return () => {};
  const { workflowExecution, workflowNamespace, activityId } = context.info;
  if (workflowExecution === undefined || workflowNamespace === undefined) return () => {};
  let told = false;
  const timer = setInterval(() => {
    void stopState(client, workflowNamespace, workflowExecution, activityId).then((state) => {
      if (state !== 'stop' || told || context.cancellationSignal.aborted) return;
      told = true;
      beat();
    });
  }, ACTIVITY_DEFAULTS.cancelCheckIntervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

function clientOf(context: Context): Client | undefined {
  try {
    return context.client;
  } catch {
    return undefined;
  }
}

async function stopState(
  client: Client,
  namespace: string,
  execution: { workflowId: string; runId: string },
  activityId: string,
): Promise<StopState | undefined> {
  const described = await describeShared(client, namespace, execution);
  if (described === undefined) return undefined;
  return !described.running || described.cancelRequested.has(activityId) ? 'stop' : 'running';
}

function describeShared(
  client: Client,
  namespace: string,
  execution: { workflowId: string; runId: string },
): Promise<DescribedRun | undefined> {
  const key = `${namespace}/${execution.workflowId}/${execution.runId}`;
  const now = Date.now();
  const cached = recent.get(key);
  if (cached !== undefined && now - cached.at < ACTIVITY_DEFAULTS.cancelCheckIntervalMs / 2) return cached.description;
  for (const [other, entry] of recent)
    if (now - entry.at > ACTIVITY_DEFAULTS.cancelCheckIntervalMs) recent.delete(other);
  const description = client.workflowService
    .describeWorkflowExecution({ namespace, execution })
    .then((response): DescribedRun => ({
      running: response.workflowExecutionInfo?.status === RUNNING,
      cancelRequested: new Set(
        (response.pendingActivities ?? [])
          .filter((activity) => activity.state === CANCEL_REQUESTED)
          .map((activity) => activity.activityId ?? ''),
      ),
    }))
    .catch((error: unknown) =>
      // A run that is gone (retention, or deleted) has ended as far as its activities go.
      (error as { code?: number }).code === 5 ? { running: false, cancelRequested: new Set<string>() } : undefined,
    );
  recent.set(key, { at: now, description });
  return description;
}
