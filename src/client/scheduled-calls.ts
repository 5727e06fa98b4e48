import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { ModelCallInput } from '../shared/activity-types';

/** What a follower needs of a model call's scheduled input: the run's stream key and the call's iteration. */
export interface ScheduledCall {
  streamKey?: string;
  iteration?: number;
}

/**
 * The model calls of a run's Temporal runs, read from their histories (not billed) as a follower meets them: the
 * input each was scheduled with, decoded with the client's data converter (so an encrypted run reads as any other).
 * Each Temporal run's history is read on from where the last look stopped.
 */
export class ScheduledCalls {
  private readonly known = new Map<string, ScheduledCall>();
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly client: Client,
    private readonly workflowId: string,
  ) {}

  /** The call `activityId` of Temporal run `runId`, once its history holds it; undefined before, or when unreadable. */
  async find(runId: string, activityId: string): Promise<ScheduledCall | undefined> {
    const key = `${runId}/${activityId}`;
    const cached = this.known.get(key);
    if (cached !== undefined) return cached;
    await this.readOn(runId).catch(() => undefined);
    return this.known.get(key);
  }

  private async readOn(runId: string): Promise<void> {
    const { client } = this;
    const skip = this.seen.get(runId) ?? 0;
    let count = 0;
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution: { workflowId: this.workflowId, runId },
        ...(nextPageToken === undefined ? {} : { nextPageToken }),
      });
      for (const event of page.history?.events ?? []) {
        count += 1;
        if (count <= skip) continue;
        const scheduled = event.activityTaskScheduledEventAttributes;
        if (scheduled?.activityType?.name !== 'callModel' || !scheduled.activityId) continue;
        const input = await decodeFromPayloadsAtIndex<Partial<ModelCallInput> | null>(
          client.options.loadedDataConverter,
          0,
          scheduled.input?.payloads,
        ).catch(() => null);
        this.known.set(`${runId}/${scheduled.activityId}`, {
          ...(typeof input?.streamKey === 'string' ? { streamKey: input.streamKey } : {}),
          ...(typeof input?.iteration === 'number' ? { iteration: input.iteration } : {}),
        });
      }
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken !== undefined);
    this.seen.set(runId, count);
  }
}
