import os from 'node:os';
import { randomUUID } from 'node:crypto';
import { withLocalStack } from '../scripts/local-stack';
import type { ChatCompletionRequest, ScriptStep } from '../src/scripted-model/script';
import { WORKFLOW_TYPE } from '../src/shared/defaults/names';
import { jsonBytes } from '../src/shared/payload-limits';
import { type AgentInput } from '../src/shared/agent-input';
import { type AgentResult } from '../src/shared/agent-result';
import { temporalRunsOf } from '../src/temporal/run-chain';
import { createBuiltinTools } from '../src/tools/builtin';
import { createAgentWorker } from '../src/worker';
import { countEvents, transcriptOf } from './run-measures';

/**
 * One very long run (10,000 iterations by default) with tiny tool results and
 * compaction on, continuing as new only when Temporal suggests it: does it
 * complete, and does its history stay linear in what it produced? Before
 * histories were linear such a run failed with `ContextTooLarge` after about
 * 3,475 iterations. Prints the history over the whole chain against the
 * content (the whole transcript, read in pages across the chain), and the
 * first and last Temporal runs' histories, which stay alike when the run is
 * linear.
 */
const MODEL = 'bench-compacted-long';
const SUMMARY_MODEL = 'bench-compacted-long-summary';

/** Adds one each iteration: it counts by the last result it read, which compaction never summarises away. */
function countingAgent(request: ChatCompletionRequest): ScriptStep {
  const wanted = Number(/Count to (\d+)\./.exec(String(request.messages[0]?.content ?? ''))?.[1] ?? 1);
  const last = [...request.messages].reverse().find((message) => message.role === 'tool');
  const reached = last === undefined ? 0 : Number(String(last.content));
  if (reached + 1 >= wanted) return { content: `Counted to ${reached}.` };
  return { toolCalls: [{ name: 'calculator', arguments: { expression: `${reached} + 1` } }] };
}

export async function benchCompactedLongRun(options: { iterations: number; maxTokens: number }): Promise<void> {
  await withLocalStack(async ({ model, client, workerConnection }) => {
    model.respond(MODEL, countingAgent);
    model.respond(SUMMARY_MODEL, (request) => ({
      content: `Counting by one with the calculator; summary of ${request.messages.length} message(s).`,
    }));
    const taskQueue = `bench-long-${randomUUID()}`;
    const worker = await createAgentWorker({
      connection: workerConnection,
      namespace: 'default',
      taskQueue,
      tools: createBuiltinTools({ workspace: os.tmpdir() }),
      model: { baseURL: model.baseURL, apiKey: 'unused', defaultModel: MODEL },
    });
    await worker.runUntil(async () => {
      const input: AgentInput = {
        model: MODEL,
        instructions: `Count to ${options.iterations}.`,
        tools: ['calculator'],
        message: 'Start counting.',
        maxInvocations: options.iterations + 1,
        compaction: { maxTokens: options.maxTokens, keepRecentIterations: 4, model: SUMMARY_MODEL },
      };
      const started = performance.now();
      const handle = await client.workflow.start(WORKFLOW_TYPE, {
        taskQueue,
        workflowId: `bench-long-${randomUUID()}`,
        args: [input],
      });
      const progress = setInterval(() => {
        void handle
          .describe()
          .then((description) =>
            console.log(
              `  long run: ${((performance.now() - started) / 1000).toFixed(0)} s, Temporal run history ${description.historyLength} events`,
            ),
          )
          .catch(() => undefined);
      }, 60_000);
      let result: AgentResult;
      try {
        result = (await handle.result()) as AgentResult;
      } finally {
        clearInterval(progress);
      }
      const seconds = (performance.now() - started) / 1000;
      const runs = await temporalRunsOf(client, handle.workflowId);
      const transcript = await transcriptOf(client, handle.workflowId);
      const compactions = await countEvents(client, handle.workflowId, 'compaction');
      const history = runs.reduce((sum, run) => sum + (run.historySize ?? 0), 0);
      const content = jsonBytes(transcript);
      const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
      console.log('');
      console.log(
        `### A compacted long run: ${options.iterations} iterations, compaction.maxTokens ${options.maxTokens}`,
      );
      console.log('');
      console.log(
        '| iterations | Temporal runs | compactions | history, whole chain | content (transcript) | history / content | first / last Temporal run | per iteration |',
      );
      console.log('|---:|---:|---:|---:|---:|---:|---|---:|');
      const first = runs[0];
      const last = runs.at(-1);
      console.log(
        `| ${result.iterations} | ${runs.length} | ${compactions} | ${mib(history)} | ${mib(content)} (${transcript.length} messages) | ${(history / content).toFixed(2)}× | ${first?.historyLength ?? 0} events, ${mib(first?.historySize ?? 0)} / ${last?.historyLength ?? 0} events, ${mib(last?.historySize ?? 0)} | ${((seconds * 1000) / result.iterations).toFixed(1)} ms |`,
      );
      console.log(`ended: ${result.terminationReason.type}, "${result.response}"`);
    });
  });
}
