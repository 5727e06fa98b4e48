import os from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { withLocalStack } from '../scripts/local-stack';
import type { ChatCompletionRequest, ScriptStep } from '../src/scripted-model/script';
import { WORKFLOW_TYPE, jsonBytes, transcriptQuery, type AgentInput, type AgentResult, type ChatMessage } from '../src/shared';
import { temporalRunsOf } from '../src/temporal/run-chain';
import { createBuiltinTools } from '../src/tools/builtin';
import { defineTool } from '../src/tools/define-tool';
import { createAgentWorker } from '../src/worker';

/**
 * How history grows with a run: runs of growing length, each iteration one
 * tool call whose result is `resultBytes` of text, and for each the bytes of
 * history over the whole continue-as-new chain against the content the run
 * produced (its whole transcript as JSON), the anchor the issue names. The
 * growth exponent between two lengths is log(history ratio) / log(length
 * ratio): 1 is linear, 2 is quadratic.
 */
export interface HistoryGrowthOptions {
  lengths: number[];
  resultBytes: number;
  /** Also measure each length continuing as new every this many iterations. */
  perRun?: number;
}

interface Measured {
  iterations: number;
  perRun?: number;
  temporalRuns: number;
  historyBytes: number;
  historyEvents: number;
  contentBytes: number;
  seconds: number;
}

const MODEL = 'bench-history-model';

/** One `fetch` call per iteration until `iterations - 1` of them, then an answer. */
function fetchingAgent(request: ChatCompletionRequest): ScriptStep {
  const wanted = Number(/(\d+) times/.exec(String(request.messages.find((message) => message.role === 'user')?.content))?.[1] ?? 1);
  const done = request.messages.filter((message) => message.role === 'assistant').length;
  if (done + 1 >= wanted) return { content: `Fetched ${done} times.` };
  return { toolCalls: [{ name: 'fetch_page', arguments: { page: done } }] };
}

async function transcriptOf(client: Client, workflowId: string): Promise<ChatMessage[]> {
  const handle = client.workflow.getHandle(workflowId);
  const messages: ChatMessage[] = [];
  for (;;) {
    const page = await handle.query(transcriptQuery, { from: messages.length, limit: 1000 });
    messages.push(...page.messages);
    if (page.messages.length === 0 || messages.length >= page.total) return messages;
  }
}

export async function benchHistoryGrowth(options: HistoryGrowthOptions): Promise<void> {
  const fetchPage = defineTool({
    name: 'fetch_page',
    description: 'Fetches a page of text.',
    parameters: z.object({ page: z.number() }),
    execute: ({ page }) => `page ${page}: ${'lorem ipsum '.repeat(Math.ceil(options.resultBytes / 12)).slice(0, options.resultBytes)}`,
  });
  await withLocalStack(async ({ model, client, workerConnection }) => {
    model.respond(MODEL, fetchingAgent);
    const taskQueue = `bench-history-${randomUUID()}`;
    const worker = await createAgentWorker({
      connection: workerConnection,
      namespace: 'default',
      taskQueue,
      tools: [...createBuiltinTools({ workspace: os.tmpdir() }), fetchPage],
      model: { baseURL: model.baseURL, apiKey: 'unused', defaultModel: MODEL },
    });
    const measure = async (iterations: number, perRun: number | undefined): Promise<Measured> => {
      const started = performance.now();
      const input: AgentInput = {
        model: MODEL,
        tools: ['fetch_page'],
        message: `Fetch ${iterations} times.`,
        maxInvocations: iterations + 1,
        ...(perRun === undefined ? {} : { iterationsPerRun: perRun }),
      };
      const handle = await client.workflow.start(WORKFLOW_TYPE, { taskQueue, workflowId: `bench-history-${randomUUID()}`, args: [input] });
      const result = (await handle.result()) as AgentResult;
      const seconds = (performance.now() - started) / 1000;
      const runs = await temporalRunsOf(client, handle.workflowId);
      const transcript = await transcriptOf(client, handle.workflowId);
      return {
        iterations: result.iterations,
        ...(perRun === undefined ? {} : { perRun }),
        temporalRuns: runs.length,
        historyBytes: runs.reduce((sum, run) => sum + (run.historySize ?? 0), 0),
        historyEvents: runs.reduce((sum, run) => sum + run.historyLength, 0),
        contentBytes: jsonBytes(transcript),
        seconds,
      };
    };
    const rows: Measured[] = [];
    await worker.runUntil(async () => {
      for (const perRun of [undefined, ...(options.perRun === undefined ? [] : [options.perRun])]) {
        for (const length of options.lengths) {
          const measured = await measure(length, perRun);
          rows.push(measured);
          console.log(`  history: ${length} iterations${perRun === undefined ? '' : `, continuing as new every ${perRun}`}: ${kib(measured.historyBytes)} for ${kib(measured.contentBytes)} of content (${measured.seconds.toFixed(1)} s)`);
        }
      }
    });
    console.log('');
    console.log(`### History against content (each iteration one tool result of ${options.resultBytes} B)`);
    console.log('');
    console.log('| iterations | continue-as-new | Temporal runs | events | history | content | history / content | growth exponent |');
    console.log('|---:|---|---:|---:|---:|---:|---:|---:|');
    for (const [index, row] of rows.entries()) {
      const previous = rows[index - 1];
      const exponent =
        previous !== undefined && previous.perRun === row.perRun
          ? (Math.log(row.historyBytes / previous.historyBytes) / Math.log(row.iterations / previous.iterations)).toFixed(2)
          : '';
      console.log(
        `| ${row.iterations} | ${row.perRun === undefined ? 'when Temporal suggests it' : `every ${row.perRun}`} | ${row.temporalRuns} | ${row.historyEvents} | ${kib(row.historyBytes)} | ${kib(row.contentBytes)} | ${(row.historyBytes / row.contentBytes).toFixed(2)}× | ${exponent} |`,
      );
    }
  });
}

function kib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(0)} KiB`;
}
