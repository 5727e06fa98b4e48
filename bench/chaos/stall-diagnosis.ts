import { setTimeout as sleep } from 'node:timers/promises';
import { temporal } from '@temporalio/proto';
import type { WorkflowHandle } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';

/** Past this long without a new history event in it or its running nested agents, an unfinished run is stuck: twice the 60 s a dead worker's call may wait. */
const STALL_WINDOW_MS = 120_000;

/** What an unfinished run was doing at the deadline: whether it still moved, and what it waited on. */
export interface StallDiagnosis {
  /** A history event of the run or a running nested agent is younger than {@link STALL_WINDOW_MS}. */
  progressing: boolean;
  /** The newest history event across the run and its running nested agents, and how old it was. */
  lastEvent: string;
  lastEventAgoMs: number;
  /** The workflow task and activities the run's own execution had pending, in a few words each. */
  pending: string[];
}

/**
 * Reads what an unfinished run was doing, so the report tells a slow run (history still moving) from a stuck one
 * (nothing moved for two minutes) and says what the stuck one waits on. Undefined when the server does not answer
 * within ten seconds.
 */
export async function diagnoseStall(handle: WorkflowHandle): Promise<StallDiagnosis | undefined> {
  const until = performance.now() + 10_000;
  while (performance.now() < until) {
    try {
      return await diagnose(handle);
    } catch {
      await sleep(1_000);
    }
  }
  return undefined;
}

async function diagnose(handle: WorkflowHandle): Promise<StallDiagnosis> {
  const { raw } = await handle.describe();
  const ids = [
    handle.workflowId,
    ...(raw.pendingChildren ?? []).flatMap((child) => (child.workflowId ? [child.workflowId] : [])),
  ];
  let newest = { at: 0, what: 'no event' };
  for (const id of ids) {
    const events = (await handle.client.getHandle(id).fetchHistory()).events ?? [];
    const last = events.at(-1);
    const at = optionalTsToMs(last?.eventTime) ?? 0;
    if (at > newest.at) newest = { at, what: `${eventName(last?.eventType)} of ${id}` };
  }
  const ago = Date.now() - newest.at;
  return {
    progressing: ago < STALL_WINDOW_MS,
    lastEvent: newest.what,
    lastEventAgoMs: ago,
    pending: pendingWork(raw),
  };
}

function pendingWork(raw: temporal.api.workflowservice.v1.IDescribeWorkflowExecutionResponse): string[] {
  const now = Date.now();
  const age = (time: Parameters<typeof optionalTsToMs>[0]) => {
    const at = optionalTsToMs(time);
    return at === undefined ? 'never' : `${((now - at) / 1000).toFixed(0)} s ago`;
  };
  const lines: string[] = [];
  const task = raw.pendingWorkflowTask;
  if (task) {
    const state = temporal.api.enums.v1.PendingWorkflowTaskState[task.state ?? 0] ?? String(task.state);
    const attempt = task.attempt ?? 1;
    // From the fourth attempt the server adds a doubling backoff to the task's timeout (workflowTaskRetryMaxInterval).
    const backoff = attempt > 3 ? ', its timeout lengthened by the server for a task lost again and again' : '';
    lines.push(
      `workflow task ${state.replace('PENDING_WORKFLOW_TASK_STATE_', '').toLowerCase()}, attempt ${attempt}, scheduled ${age(task.scheduledTime)}, started ${age(task.startedTime)}${backoff}`,
    );
  }
  for (const activity of raw.pendingActivities ?? []) {
    const state = temporal.api.enums.v1.PendingActivityState[activity.state ?? 0] ?? String(activity.state);
    const failure = activity.lastFailure?.message
      ? `, last failure: ${activity.lastFailure.message.slice(0, 120)}`
      : '';
    lines.push(
      `activity ${activity.activityType?.name ?? '?'} ${state.replace('PENDING_ACTIVITY_STATE_', '').toLowerCase()}, ` +
        `attempt ${activity.attempt ?? 1}, last started ${age(activity.lastStartedTime)}, ` +
        `last heartbeat ${age(activity.lastHeartbeatTime)}${failure}`,
    );
  }
  return lines;
}

function eventName(type: temporal.api.enums.v1.EventType | null | undefined): string {
  const name = temporal.api.enums.v1.EventType[type ?? 0] ?? 'event';
  return name.replace('EVENT_TYPE_', '').toLowerCase().replace(/_/g, '-');
}
