import type { Client } from '@temporalio/client';
import { readAgentTranscript } from '../src/client';
import { eventsQuery } from '../src/workflow-contract/definitions';
import { type ChatMessage } from '../src/shared/messages';

/** The run's whole transcript, across its Temporal runs (a hand-over after compaction leaves messages in earlier ones). */
export async function transcriptOf(client: Client, workflowId: string): Promise<ChatMessage[]> {
  const messages: ChatMessage[] = [];
  for await (const message of readAgentTranscript(client, workflowId)) messages.push(message);
  return messages;
}

/** How many events of `type` the run logged (its event log, across its Temporal runs). */
export async function countEvents(client: Client, workflowId: string, type: string): Promise<number> {
  const handle = client.workflow.getHandle(workflowId);
  let after = 0;
  let count = 0;
  for (;;) {
    const page = await handle.query(eventsQuery, { after, limit: 500 });
    count += page.events.filter((event) => event.type === type).length;
    if (page.events.length === 0) return count;
    after = page.nextCursor;
  }
}
