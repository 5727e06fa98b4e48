import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { followRun } from './follow-run';
import type { ChildRun, RunOutcome } from './run-comparison';

/**
 * `outcome` with, when the run completed, the nested agents it started
 * ({@link readChildRuns}); a run that did not complete is left as it is.
 */
export async function withChildRuns(
  client: Client,
  workflowId: string,
  outcome: RunOutcome,
  deadline: number,
): Promise<RunOutcome> {
  if (outcome.status !== 'completed') return outcome;
  return { ...outcome, children: await readChildRuns(client, workflowId, deadline) };
}

/**
 * The nested agents a run started, in the order it started them: one entry
 * per `StartChildWorkflowExecutionInitiated` event of its history (so a
 * child started twice is listed twice), each with every Temporal run its
 * workflow id had (so a child run again under the same id shows as two runs),
 * how its last run ended, and its own children. Reads history of the run's
 * latest Temporal run only: chaos runs do not continue as new. A read that
 * fails (the server restarting) is retried until `deadline`; a child still
 * unread then is listed with no runs and as stuck.
 */
async function readChildRuns(client: Client, workflowId: string, deadline: number): Promise<ChildRun[]> {
  const events = (await retried(() => client.workflow.getHandle(workflowId).fetchHistory(), deadline))?.events ?? [];
  const childIds = events.flatMap((event) => {
    const childId = event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
    return childId === undefined || childId === null ? [] : [childId];
  });
  const children: ChildRun[] = [];
  for (const childId of childIds) {
    const runIds = (await retried(() => runIdsOf(client, childId), deadline)) ?? [];
    const outcome =
      runIds.length === 0
        ? ({ status: 'stuck' } as const)
        : await followRun(client.workflow.getHandle(childId), deadline);
    children.push({
      callId: childId.startsWith(`${workflowId}/`) ? childId.slice(workflowId.length + 1) : childId,
      runIds,
      interrupted: runIds.length > 0 && (await retried(() => wasInterrupted(client, childId), deadline)) === true,
      outcome: await withChildRuns(client, childId, outcome, deadline),
    });
  }
  return children;
}

/** Every Temporal run of `workflowId`, oldest first. Visibility may lag a start by a moment: an empty list is asked again. */
async function runIdsOf(client: Client, workflowId: string): Promise<string[]> {
  const runs: { runId: string; startTime: Date }[] = [];
  for (let attempt = 0; attempt < 20 && runs.length === 0; attempt++) {
    if (attempt > 0) await sleep(250);
    for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
      runs.push({ runId: execution.runId, startTime: execution.startTime });
    }
  }
  return runs.sort((left, right) => left.startTime.getTime() - right.startTime.getTime()).map((run) => run.runId);
}

/**
 * Whether a kill landed in the child's latest run: a workflow task that timed
 * out or failed (its worker died holding it), or an activity that completed
 * on a later attempt.
 */
async function wasInterrupted(client: Client, workflowId: string): Promise<boolean> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).some(
    (event) =>
      (event.workflowTaskTimedOutEventAttributes ?? undefined) !== undefined ||
      (event.workflowTaskFailedEventAttributes ?? undefined) !== undefined ||
      (event.activityTaskStartedEventAttributes?.attempt ?? 1) > 1,
  );
}

/** `read()`, asked again while it throws (the server is down or restarting), until `deadline`; undefined past it. */
async function retried<T>(read: () => Promise<T>, deadline: number): Promise<T | undefined> {
  while (performance.now() < deadline) {
    try {
      return await read();
    } catch {
      await sleep(Math.min(1_000, Math.max(0, deadline - performance.now())));
    }
  }
  return undefined;
}
