import { SEARCH_ATTRIBUTE_COUNTER_STEP } from '../../src/shared/defaults/activities';

/**
 * What an unwatched agent run costs in Temporal actions, as docs/operations/actions.md writes it: the start, one per
 * model call and per regular tool call (each attempt), one per workflow task that ran local activities (the
 * catalog's at the start, then one a local tool's iteration), the search-attribute upserts (at the start, every
 * `SEARCH_ATTRIBUTE_COUNTER_STEP` iterations, at the end), and the heartbeats that reach the server.
 */
export interface RunShape {
  modelCalls: number;
  regularToolCalls: number;
  /** Workflow tasks that ran a local tool (one an iteration whose calls are all local). */
  localToolTasks: number;
  heartbeats: number;
}

/** The formula's parts and their total. */
export function predictedActions(shape: RunShape): { total: number; parts: Record<string, number> } {
  const parts = {
    start: 1,
    modelCalls: shape.modelCalls,
    regularToolCalls: shape.regularToolCalls,
    catalog: 1,
    localToolTasks: shape.localToolTasks,
    upserts: 2 + Math.floor(shape.modelCalls / SEARCH_ATTRIBUTE_COUNTER_STEP),
    heartbeats: shape.heartbeats,
  };
  return { total: Object.values(parts).reduce((sum, value) => sum + value, 0), parts };
}
