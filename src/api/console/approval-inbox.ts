import type { Client } from '@temporalio/client';
import { AgentPendingApprovalsKey } from '../../workflow-contract/search-attributes';
import { CONSOLE_DEFAULTS } from '../../shared/defaults/console';
import { WORKFLOW_TYPE } from '../../shared/defaults/names';
import type { RunEvent } from '../../shared/run-events';
import type { InboxItem } from '../../shared/approval-inbox-item';
import type { RunSubscriptions } from '../run-subscriptions';
import { readToolSchemas } from './tool-schemas';

/** One run the inbox follows: its waiting calls by call id, and how to stop following it. */
interface FollowedRun {
  pending: Map<string, InboxItem>;
  stop: AbortController;
  /** The run's tools' schemas, read from its history once it first has a waiting call. */
  schemas?: Record<string, Record<string, unknown>>;
}

/** What the inbox needs. */
export interface ApprovalInboxOptions {
  client: Client;
  subscriptions: RunSubscriptions;
  pollMs?: number;
  maxRuns?: number;
}

/**
 * Every tool call waiting for a decision, for all consoles of this API process: one visibility list a poll finds runs
 * with `AgentPendingApprovals > 0`, and their event logs are followed through the shared subscriptions, with no query
 * per run per second.
 */
export class ApprovalInbox {
  private readonly runs = new Map<string, FollowedRun>();
  private readonly listeners = new Set<(items: InboxItem[]) => void>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(private readonly options: ApprovalInboxOptions) {}

  /** Calls `listener` with the whole inbox now and at every change, until the returned function is called. */
  listen(listener: (items: InboxItem[]) => void): () => void {
    this.listeners.add(listener);
    listener(this.items());
    if (this.timer === undefined) {
      void this.poll();
      this.timer = setInterval(() => void this.poll(), this.options.pollMs ?? CONSOLE_DEFAULTS.inboxPollMs);
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopAll();
    };
  }

  /** Every waiting call, oldest request first. */
  items(): InboxItem[] {
    return [...this.runs.values()]
      .flatMap((run) => [...run.pending.values()])
      .sort((a, b) => a.requested_at.localeCompare(b.requested_at));
  }

  /** Stops every follow and the poll. */
  stopAll(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    for (const run of this.runs.values()) run.stop.abort();
    this.runs.clear();
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const query = `WorkflowType = '${WORKFLOW_TYPE}' AND ExecutionStatus = 'Running' AND ${AgentPendingApprovalsKey.name} > 0`;
      const max = this.options.maxRuns ?? CONSOLE_DEFAULTS.inboxMaxRuns;
      const waiting = new Set<string>();
      for await (const execution of this.options.client.workflow.list({ query, pageSize: max })) {
        if (this.timer === undefined) return;
        waiting.add(execution.workflowId);
        if (!this.runs.has(execution.workflowId)) this.follow(execution.workflowId);
        if (waiting.size >= max) break;
      }
      // A run no longer waiting, by visibility and by its own log, is no longer followed.
      for (const [workflowId, run] of this.runs)
        if (!waiting.has(workflowId) && run.pending.size === 0) {
          run.stop.abort();
          this.runs.delete(workflowId);
        }
    } catch {
      // Visibility unreachable: the runs followed so far stay, and the next poll tries again.
    } finally {
      this.polling = false;
    }
  }

  private follow(workflowId: string): void {
    const run: FollowedRun = { pending: new Map(), stop: new AbortController() };
    this.runs.set(workflowId, run);
    void (async () => {
      try {
        for await (const event of this.options.subscriptions.follow(workflowId, 0, run.stop.signal)) {
          if (event.type === 'approval-request' && run.schemas === undefined)
            run.schemas = await readToolSchemas(this.options.client, workflowId).catch(() => ({}));
          if (apply(run.pending, workflowId, event, run.schemas)) this.changed();
        }
      } catch {
        // The follow failed (the run is gone): it leaves the inbox; a later poll follows it again if it still waits.
      }
      // Ended, or no longer waiting: dropped, so a later wait of the same run is found by the poll again.
      if (this.runs.get(workflowId) === run) this.runs.delete(workflowId);
      run.stop.abort();
      if (run.pending.size > 0) this.changed();
    })();
  }

  private changed(): void {
    const items = this.items();
    for (const listener of this.listeners) listener(items);
  }
}

/** Applies one event of a run to its waiting calls; whether they changed. */
function apply(
  pending: Map<string, InboxItem>,
  runId: string,
  event: RunEvent,
  schemas: Record<string, Record<string, unknown>> = {},
): boolean {
  switch (event.type) {
    case 'approval-request': {
      const parameters = schemas[event.toolName];
      pending.set(event.callId, {
        run_id: runId,
        call_id: event.callId,
        tool_name: event.toolName,
        arguments: event.arguments,
        requested_at: event.at,
        ...(event.policy === undefined ? {} : { policy: event.policy }),
        ...(event.reason === undefined ? {} : { reason: event.reason }),
        ...(parameters === undefined ? {} : { parameters }),
      });
      return true;
    }
    case 'approval-decision':
    case 'approval-abandonment':
      return pending.delete(event.callId);
    case 'run-end':
      if (pending.size === 0) return false;
      pending.clear();
      return true;
    default:
      return false;
  }
}
