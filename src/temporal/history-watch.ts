import type { Client, WorkflowClient } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

const EventType = temporal.api.enums.v1.EventType;
const ALL_EVENTS = temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT;

/** History events after which a run may have appended to its event log: a finished workflow task, or the close. */
const CLOSE_EVENTS: ReadonlySet<number> = new Set([
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
]);

/** What the history did since the previous look. */
export interface HistoryMove {
  /** A workflow task finished after the last read of the log: the run may have appended events not read yet. */
  appended: boolean;
  /** How the Temporal run being watched closed, if it did: continued as new, or ended for good. */
  closed?: 'continued' | 'ended';
  /** Whether the run ended by completing or failing (its close carries its last state and events). */
  recorded?: boolean;
}

/**
 * Watches one workflow id's history with Temporal's long poll (`waitNewEvent`), which is not a billed action: each
 * look returns once the history has grown (or the server's long-poll timeout passed). Across continue-as-new it goes
 * on with the next Temporal run. Reads event types only, so payloads (encrypted or not) are never decoded.
 */
export class HistoryWatch {
  private token: Uint8Array | undefined;
  /** History events of the watched run up to this id happened before the last read of the log: it saw their effect. */
  private readUpTo = 0;

  constructor(
    private readonly client: Client | WorkflowClient,
    private readonly workflowId: string,
    private runId: string,
  ) {}

  /**
   * Records that the log is about to be read, with the run's history `historyLength` events long (a describe just
   * before the read): events up to there need no other read. A describe of another Temporal run records nothing.
   */
  readAt(runId: string, historyLength: number): void {
    if (runId === this.runId) this.readUpTo = Math.max(this.readUpTo, historyLength);
  }

  /**
   * Waits until the history moved in a way that may have appended events not read yet, or the run closed; answers
   * undefined when `signal` aborted first. Each long poll returns when the history grew or the server's wait ran out.
   */
  async next(signal: AbortSignal | undefined): Promise<HistoryMove | undefined> {
    const move: HistoryMove = { appended: false };
    while (signal?.aborted !== true) {
      const response = await this.read(signal);
      const next = response.nextPageToken;
      this.token = next !== undefined && next !== null && next.length > 0 ? next : undefined;
      for (const event of response.history?.events ?? []) this.note(event, move);
      if (move.closed !== undefined || move.appended) return move;
      // No token once the run is closed and all its history read: a close event was seen before, never here.
      if (this.token === undefined) return { appended: false, closed: 'ended' };
    }
    return undefined;
  }

  private read(signal: AbortSignal | undefined) {
    const request = () =>
      this.client.workflowService.getWorkflowExecutionHistory({
        namespace: this.client.options.namespace,
        execution: { workflowId: this.workflowId, runId: this.runId },
        ...(this.token === undefined ? {} : { nextPageToken: this.token }),
        waitNewEvent: true,
        historyEventFilterType: ALL_EVENTS,
        skipArchival: true,
      });
    return signal === undefined ? request() : this.client.connection.withAbortSignal(signal, request);
  }

  private note(event: temporal.api.history.v1.IHistoryEvent, move: HistoryMove): void {
    const type = event.eventType ?? EventType.EVENT_TYPE_UNSPECIFIED;
    const id = Number(event.eventId ?? 0);
    if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED && id > this.readUpTo) move.appended = true;
    if (!CLOSE_EVENTS.has(type)) return;
    const next = event.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    if (type === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW && next) {
      // The next Temporal run carries the log on (its first events are read with its first task): watch it from its start.
      move.closed = 'continued';
      this.runId = next;
      this.token = undefined;
      this.readUpTo = 0;
      return;
    }
    move.closed = 'ended';
    move.recorded =
      type === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED ||
      type === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED;
  }
}
