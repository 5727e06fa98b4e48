/**
 * The event log and what the web UI shows.
 * Pure values, imported by workflow code; the runner's defaults are the modules of src/shared/defaults/.
 */

/** Most events one `events` query returns. */
export const MAX_EVENTS_PER_PAGE = 500;

/** Events a run carries across continue-as-new: enough for a follower a few pages behind, small as a payload. */
export const CARRIED_EVENTS = 200;

/** Longest text an event carries (tool arguments, outputs, model text); the full text is in the messages. */
export const EVENT_PREVIEW_CHARS = 500;

/** Longest argument text shown in a tool call's activity summary in the web UI. */
export const ACTIVITY_SUMMARY_ARGUMENT_CHARS = 80;

/**
 * Most bytes of events a finished run's result carries (its newest that fit), so its events are read without a
 * query or a worker: a 10-iteration run's whole log is well under it, and it keeps the result small.
 */
export const CLOSED_RUN_EVENT_BYTES = 64 * 1024;
