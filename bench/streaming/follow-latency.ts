import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { sseData } from '../../src/activities/sse-data';
import type { ScriptedModelServer } from '../../src/scripted-model/server';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import type { AgentWorkflowResult } from '../../src/shared/result-answer';
import { now, summary } from './latency';

/** What {@link benchFollowLatency} measures with: an API listening on `url` (token `token`) for the worker's queue. */
export interface FollowLatencyOptions {
  client: Client;
  model: ScriptedModelServer;
  taskQueue: string;
  url: string;
  token: string;
  runs: number;
  /** Iterations per run, each a model call of `modelDelayMs` then one calculator call. */
  iterations: number;
  modelDelayMs: number;
  log: (line: string) => void;
}

/**
 * How soon a run's durable events reach a follower of the API's Server-Sent Events: from the event's `at` (the
 * workflow time of the task that wrote it, so a little before it was written) to the frame's arrival. And what the
 * finished run's result carries for readers (`closedRun`), in bytes of its history.
 */
export async function benchFollowLatency(options: FollowLatencyOptions): Promise<void> {
  const { client, model } = options;
  const latencies: number[] = [];
  const deltaLatencies: number[] = [];
  let closedRunBytes = 0;
  let historyBytes = 0;
  for (let run = 0; run < options.runs; run += 1) {
    const name = `bench-follow-${randomUUID().slice(0, 8)}`;
    model.script(name, [
      ...Array.from({ length: options.iterations - 1 }, (_, index) => ({
        // Words of their own per call: each delta received is matched to the chunk the server wrote.
        content: Array.from({ length: 5 }, (_, word) => `c${index}w${word}`).join(' '),
        tokenDelayMs: 20,
        toolCalls: [{ name: 'calculator', arguments: { expression: `${index} + 1` }, id: `call_${index}` }],
        delayMs: options.modelDelayMs,
      })),
      { content: 'done', delayMs: options.modelDelayMs },
    ]);
    const handle = await client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: options.taskQueue,
      workflowId: `bench-follow-${randomUUID()}`,
      args: [{ model: name, tools: ['calculator'], message: 'count' }],
    });
    const response = await fetch(`${options.url}/runs/${encodeURIComponent(handle.workflowId)}/events`, {
      headers: { authorization: `Bearer ${options.token}` },
    });
    if (response.body === null) throw new Error(`the event stream answered ${response.status} without a body`);
    const deltas = new Map<string, number>();
    for await (const data of sseData(response.body)) {
      const event = JSON.parse(data) as { seq?: unknown; at?: unknown; type?: unknown; text?: unknown };
      if (typeof event.seq === 'number' && typeof event.at === 'string') latencies.push(now() - Date.parse(event.at));
      if (event.type === 'model-text-delta' && typeof event.text === 'string') deltas.set(event.text, now());
    }
    for (const chunk of model.sentChunks(name)) {
      const at = deltas.get(chunk.text);
      if (chunk.text !== '' && at !== undefined) deltaLatencies.push(at - chunk.at);
    }
    const result = (await handle.result()) as AgentWorkflowResult;
    closedRunBytes = Buffer.byteLength(JSON.stringify(result.closedRun ?? null));
    historyBytes = (await handle.describe()).historySize ?? 0;
  }
  options.log(
    `durable events -> API SSE, ${options.runs} runs of ${options.iterations} iterations (model ${options.modelDelayMs} ms, one calculator call each): ${summary(latencies).replace('deltas', 'events')}`,
  );
  options.log(`  model deltas of those runs' calls -> API SSE: ${summary(deltaLatencies)}`);
  options.log(
    `  the result's closedRun (state and events for readers of the finished run): ${closedRunBytes} bytes of the run's ${historyBytes}-byte history`,
  );
}
