import { percentile } from './statistics';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { withLocalStack } from '../scripts/local-stack';
import type { ChatCompletionRequest, ScriptStep } from '../src/scripted-model/script';
import { WORKFLOW_TYPE } from '../src/shared/defaults/names';
import { type AgentResult } from '../src/shared/agent-result';
import { defineAgentTool } from '../src/tools/define-agent-tool';
import { defineTool } from '../src/tools/define-tool';
import { createAgentWorker } from '../src/worker';

/**
 * What a nested agent costs: runs whose one tool call is a plain tool, against
 * runs whose one tool call is a nested agent (`defineAgentTool`) doing the same
 * work with one model call of its own. Both on one worker and dev server, the
 * model scripted and instant, so what differs is the runner's own overhead:
 * starting a child workflow, its catalog, its one model call, its result.
 */
export interface NestedOverheadOptions {
  /** Runs of each kind, one at a time. @default 20 */
  runs?: number;
  log: (line: string) => void;
}

/** What one kind of run measured. */
interface Measured {
  medianMs: number;
  p95Ms: number;
  /** History events of one run, its child's included. */
  historyEvents: number;
}

const MODEL = 'bench-nested-model';
const CHILD_MARKER = 'You are the nested researcher.';
const ANSWER = 'The answer is 42.';

/** The parent calls the tool its message names, then answers; the child (known by its instructions) answers at once. */
function nestedAgent(request: ChatCompletionRequest): ScriptStep {
  const isChild = request.messages.some(
    (message) => message.role === 'system' && String(message.content ?? '').includes(CHILD_MARKER),
  );
  if (isChild) return { content: ANSWER };
  if (request.messages.at(-1)?.role === 'tool') return { content: 'Done.' };
  const tool =
    /use (\w+)/.exec(String(request.messages.find((message) => message.role === 'user')?.content ?? ''))?.[1] ??
    'lookup';
  return { toolCalls: [{ name: tool, arguments: tool === 'lookup' ? { question: 'what?' } : { task: 'what?' } }] };
}

/** `npm run bench -- --only nested`: the overhead of a nested agent, per child. */
export async function benchNestedOverhead(options: NestedOverheadOptions): Promise<void> {
  const runs = options.runs ?? 20;
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks an answer up.',
    parameters: z.object({ question: z.string() }),
    execute: () => ANSWER,
  });
  const researcher = defineAgentTool({
    name: 'researcher',
    description: 'Researches an answer.',
    instructions: CHILD_MARKER,
    tools: [],
  });
  await withLocalStack(async ({ model, client, workerConnection }) => {
    model.respond(MODEL, nestedAgent);
    const taskQueue = `bench-nested-${randomUUID()}`;
    const worker = await createAgentWorker({
      connection: workerConnection,
      namespace: 'default',
      taskQueue,
      tools: [lookup, researcher],
      model: { baseURL: model.baseURL, apiKey: 'unused', defaultModel: MODEL },
    });
    const runOnce = async (tool: 'lookup' | 'researcher'): Promise<{ ms: number; workflowId: string }> => {
      const started = performance.now();
      const handle = await client.workflow.start(WORKFLOW_TYPE, {
        taskQueue,
        workflowId: `bench-nested-${randomUUID()}`,
        args: [{ tools: [tool], message: `Please use ${tool}.` }],
      });
      const result = (await handle.result()) as AgentResult;
      if (result.response !== 'Done.') throw new Error(`unexpected response: ${result.response}`);
      return { ms: performance.now() - started, workflowId: handle.workflowId };
    };
    const historyEvents = async (workflowId: string): Promise<number> =>
      (await client.workflow.getHandle(workflowId).fetchHistory()).events?.length ?? 0;
    const measure = async (tool: 'lookup' | 'researcher'): Promise<Measured> => {
      const times: number[] = [];
      let last = '';
      for (let run = 0; run < runs; run++) {
        const { ms, workflowId } = await runOnce(tool);
        times.push(ms);
        last = workflowId;
      }
      times.sort((left, right) => left - right);
      const events =
        (await historyEvents(last)) + (tool === 'researcher' ? await historyEvents(`${last}/call-1-1`) : 0);
      return { medianMs: percentile(times, 0.5), p95Ms: percentile(times, 0.95), historyEvents: events };
    };
    await worker.runUntil(async () => {
      // Warm both paths: the first runs pay for the bundle's first activations.
      for (let warm = 0; warm < 3; warm++) await Promise.all([runOnce('lookup'), runOnce('researcher')]);
      const plain = await measure('lookup');
      const nested = await measure('researcher');
      options.log('');
      options.log(`Nested agents: ${runs} runs each, one at a time, one tool call per run`);
      options.log('| run | median | p95 | history events (child included) |');
      options.log('| --- | --- | --- | --- |');
      options.log(
        `| plain tool (\`lookup\`) | ${plain.medianMs.toFixed(0)} ms | ${plain.p95Ms.toFixed(0)} ms | ${plain.historyEvents} |`,
      );
      options.log(
        `| nested agent (\`researcher\`, one model call) | ${nested.medianMs.toFixed(0)} ms | ${nested.p95Ms.toFixed(0)} ms | ${nested.historyEvents} |`,
      );
      options.log(
        `overhead per child: ${(nested.medianMs - plain.medianMs).toFixed(0)} ms at the median, ${nested.historyEvents - plain.historyEvents} history events`,
      );
    });
  });
}
