import type { Client } from '@temporalio/client';
import { CLIENT_DEFAULTS } from '../shared/defaults/client';
import { MESSAGE_PAGES } from '../shared/defaults/sizes';
import type { ChatMessage } from '../shared/messages';
import type { MessagePage, TranscriptQueryInput, TranscriptRun } from '../shared/transcript';
import { isWorkflowNotFound } from '../temporal/errors';
import { transcriptQuery } from '../workflow-contract/definitions';
import { RunNotFoundError } from './run-not-found-error';
import { unlessNoWorker } from './worker-presence';

/**
 * A page of the run's whole conversation, during or after it: up to `limit` messages (default 100, at most 1,000,
 * and 1 MiB) from index `from`; throws `RunNotFoundError` for an unknown id.
 */
export async function getAgentTranscript(
  client: Client,
  workflowId: string,
  page: TranscriptQueryInput = {},
): Promise<MessagePage> {
  try {
    const latest = await unlessNoWorker(client, workflowId, () =>
      client.workflow.getHandle(workflowId).query(transcriptQuery, page),
    );
    // Messages left behind by a hand-over are in the Temporal run that had them: follow the chain back.
    let answer = latest;
    for (let hops = 0; answer.earlierRunId !== undefined && hops < CLIENT_DEFAULTS.maxTranscriptHops; hops += 1) {
      answer = await client.workflow.getHandle(workflowId, answer.earlierRunId).query(transcriptQuery, page);
    }
    if (answer.earlierRunId !== undefined)
      throw new Error(
        `The transcript of ${workflowId} from message ${String(page.from ?? 0)} is more than ${CLIENT_DEFAULTS.maxTranscriptHops} Temporal runs back.`,
      );
    return { total: latest.total, from: answer.from, messages: answer.messages };
  } catch (error) {
    if (isWorkflowNotFound(error)) throw new RunNotFoundError(workflowId);
    throw error;
  }
}

/**
 * Every message of the run's conversation from `from`, a page at a time, across its chain of Temporal runs: each run is
 * queried only for the pages it holds, since a closed run answers by replaying its history.
 */
export async function* readAgentTranscript(client: Client, workflowId: string, from = 0): AsyncGenerator<ChatMessage> {
  /** The earlier Temporal runs that hold messages left behind, oldest first, as the runs met so far listed them. */
  let runs: TranscriptRun[] = [];
  /** The Temporal run to ask next; `undefined` is the latest. */
  let target: string | undefined;
  let next = from;
  try {
    for (let hops = 0; ;) {
      const page = await client.workflow
        .getHandle(workflowId, target)
        .query(transcriptQuery, { from: next, limit: MESSAGE_PAGES.maxLimit });
      if (page.earlierRunId !== undefined) {
        hops += 1;
        if (hops > CLIENT_DEFAULTS.maxTranscriptHops)
          throw new Error(
            `The transcript of ${workflowId} from message ${next} is more than ${CLIENT_DEFAULTS.maxTranscriptHops} Temporal runs back.`,
          );
        if (page.runs !== undefined) runs = mergeRuns(runs, page.runs);
        target = page.earlierRunId;
        continue;
      }
      yield* page.messages;
      next = page.from + page.messages.length;
      // The latest run knows the whole transcript's length; an earlier one only where its own messages end.
      const exhausted = next >= page.total || page.messages.length === 0;
      if (target === undefined) {
        if (exhausted) return;
      } else if (exhausted) {
        // The listed run that holds the next message, if it is a later one; else the latest, which points on.
        const holder = runs.findLast((run) => run.from <= next);
        target = holder !== undefined && holder.runId !== target ? holder.runId : undefined;
      }
    }
  } catch (error) {
    if (isWorkflowNotFound(error)) throw new RunNotFoundError(workflowId);
    throw error;
  }
}

/** The runs two pages listed, as one list in transcript order (a run listed by both once). */
function mergeRuns(known: readonly TranscriptRun[], listed: readonly TranscriptRun[]): TranscriptRun[] {
  const byId = new Map([...known, ...listed].map((run) => [run.runId, run]));
  return [...byId.values()].sort((left, right) => left.from - right.from);
}
