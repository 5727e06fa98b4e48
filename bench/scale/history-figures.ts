import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** What one Temporal run's history holds, counted from its events. */
export interface HistoryFigures {
  events: number;
  /** Activities scheduled, by activity type (`callModel`, `executeTool`, ...). */
  activities: Record<string, number>;
  /** Attempts of those activities (a retried activity counts each attempt). */
  activityAttempts: number;
  /** Local activities (markers `core_local_activity`), and the workflow tasks that recorded them. */
  localActivities: number;
  localActivityTasks: number;
  timers: number;
  workflowTasks: number;
  searchAttributeUpserts: number;
  memoUpserts: number;
  signals: number;
  updates: number;
  childWorkflows: number;
  /** Temporal Cloud actions found in the history (see {@link cloudActions}); heartbeats are not in a history. */
  cloudActions: number;
}

const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

/**
 * Counts a history. The Temporal Cloud actions are those its documentation
 * (docs.temporal.io/cloud/actions, read 2026-11-26) lists that leave an event:
 * a workflow started (also by continue-as-new or as a child), each activity
 * attempt, the local activities of one workflow task together as one, a timer,
 * a signal, an update, a search-attribute or memo upsert, a child workflow or
 * external signal started. Heartbeats and queries are actions too but leave no
 * event: they are counted apart.
 */
export function historyFigures(events: readonly HistoryEvent[]): HistoryFigures {
  const activities: Record<string, number> = {};
  const localActivityTasks = new Set<string>();
  const figures = {
    activityAttempts: 0,
    localActivities: 0,
    timers: 0,
    workflowTasks: 0,
    searchAttributeUpserts: 0,
    memoUpserts: 0,
    signals: 0,
    updates: 0,
    childWorkflows: 0,
  };
  let workflowStarts = 0;
  let externalSignals = 0;
  for (const event of events) {
    if (event.workflowExecutionStartedEventAttributes) workflowStarts += 1;
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const type = scheduled.activityType?.name ?? 'unknown';
      activities[type] = (activities[type] ?? 0) + 1;
    }
    if (event.activityTaskStartedEventAttributes)
      figures.activityAttempts += Math.max(1, event.activityTaskStartedEventAttributes.attempt ?? 1);
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName === LOCAL_ACTIVITY_MARKER) {
      figures.localActivities += 1;
      localActivityTasks.add(String(marker.workflowTaskCompletedEventId ?? ''));
    }
    if (event.timerStartedEventAttributes) figures.timers += 1;
    if (event.workflowTaskCompletedEventAttributes) figures.workflowTasks += 1;
    if (event.upsertWorkflowSearchAttributesEventAttributes) figures.searchAttributeUpserts += 1;
    if (event.workflowPropertiesModifiedEventAttributes) figures.memoUpserts += 1;
    if (event.workflowExecutionSignaledEventAttributes) figures.signals += 1;
    if (event.workflowExecutionUpdateAcceptedEventAttributes) figures.updates += 1;
    if (event.startChildWorkflowExecutionInitiatedEventAttributes) figures.childWorkflows += 1;
    if (event.signalExternalWorkflowExecutionInitiatedEventAttributes) externalSignals += 1;
  }
  const cloudActions =
    workflowStarts +
    figures.activityAttempts +
    localActivityTasks.size +
    figures.timers +
    figures.signals +
    figures.updates +
    figures.searchAttributeUpserts +
    figures.memoUpserts +
    figures.childWorkflows +
    externalSignals;
  return { events: events.length, activities, localActivityTasks: localActivityTasks.size, ...figures, cloudActions };
}

/** The figures of several Temporal runs (a continue-as-new chain) added up. */
export function addFigures(all: readonly HistoryFigures[]): HistoryFigures {
  const sum = (pick: (figures: HistoryFigures) => number) => all.reduce((total, each) => total + pick(each), 0);
  const activities: Record<string, number> = {};
  for (const each of all)
    for (const [type, count] of Object.entries(each.activities)) activities[type] = (activities[type] ?? 0) + count;
  return {
    events: sum((each) => each.events),
    activities,
    activityAttempts: sum((each) => each.activityAttempts),
    localActivities: sum((each) => each.localActivities),
    localActivityTasks: sum((each) => each.localActivityTasks),
    timers: sum((each) => each.timers),
    workflowTasks: sum((each) => each.workflowTasks),
    searchAttributeUpserts: sum((each) => each.searchAttributeUpserts),
    memoUpserts: sum((each) => each.memoUpserts),
    signals: sum((each) => each.signals),
    updates: sum((each) => each.updates),
    childWorkflows: sum((each) => each.childWorkflows),
    cloudActions: sum((each) => each.cloudActions),
  };
}
