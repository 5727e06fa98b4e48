import os from 'node:os';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { withLocalStack } from '../scripts/local-stack';
import type { ChatCompletionRequest, ScriptStep } from '../src/scripted-model/script';
import { WORKFLOW_TYPE } from '../src/shared/defaults/names';
import { jsonBytes } from '../src/shared/payload-limits';
import { type AgentInput } from '../src/shared/agent-input';
import { type AgentResult } from '../src/shared/agent-result';
import { temporalRunsOf } from '../src/temporal/run-chain';
import { createBuiltinTools } from '../src/tools/builtin';
import { defineTool } from '../src/tools/define-tool';
import { createAgentWorker } from '../src/worker';
import { countEvents, transcriptOf } from './run-measures';

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
  /** Also measure each length continuing as new every this many iterations, without and with compaction. */
  perRun?: number;
  /** `compaction.maxTokens` of the runs with compaction. */
  compactionTokens: number;
}

/** The variants measured: continue-as-new only when Temporal suggests it, every `perRun`, and every `perRun` with compaction. */
interface Variant {
  perRun?: number;
  compaction?: boolean;
}

interface Measured {
  iterations: number;
  perRun?: number;
  compaction?: boolean;
  compactions: number;
  temporalRuns: number;
  historyBytes: number;
  historyEvents: number;
  contentBytes: number;
  seconds: number;
}

const MODEL = 'bench-history-model';
const SUMMARY_MODEL = 'bench-history-summary';

/**
 * One `fetch_page` call per iteration until `iterations - 1` of them, then an answer. It counts by the
 * last page it read, not by the messages it sees, which compaction summarises.
 */
function fetchingAgent(request: ChatCompletionRequest): ScriptStep {
  const wanted = Number(
    /Fetch (\d+) times/.exec(request.messages.map((message) => String(message.content ?? '')).join('\n'))?.[1] ?? 1,
  );
  const lastPage = [...request.messages].reverse().find((message) => message.role === 'tool');
  const done = lastPage === undefined ? 0 : Number(/^page (\d+):/.exec(String(lastPage.content))?.[1] ?? -1) + 1;
  if (done + 1 >= wanted) return { content: `Fetched ${done} times.` };
  return { toolCalls: [{ name: 'fetch_page', arguments: { page: done } }] };
}

export async function benchHistoryGrowth(options: HistoryGrowthOptions): Promise<void> {
  const fetchPage = defineTool({
    name: 'fetch_page',
    description: 'Fetches a page of text.',
    parameters: z.object({ page: z.number() }),
    execute: ({ page }) =>
      `page ${page}: ${'lorem ipsum '.repeat(Math.ceil(options.resultBytes / 12)).slice(0, options.resultBytes)}`,
  });
  await withLocalStack(async ({ model, client, workerConnection }) => {
    model.respond(MODEL, fetchingAgent);
    model.respond(SUMMARY_MODEL, () => ({
      content: 'The user asked for pages; every page so far was fetched and read.',
    }));
    const taskQueue = `bench-history-${randomUUID()}`;
    const worker = await createAgentWorker({
      connection: workerConnection,
      namespace: 'default',
      taskQueue,
      tools: [...createBuiltinTools({ workspace: os.tmpdir() }), fetchPage],
      model: { baseURL: model.baseURL, apiKey: 'unused', defaultModel: MODEL },
    });
    const measure = async (iterations: number, { perRun, compaction }: Variant): Promise<Measured> => {
      const started = performance.now();
      const input: AgentInput = {
        model: MODEL,
        tools: ['fetch_page'],
        // In the instructions, which compaction never summarises away.
        instructions: `Fetch ${iterations} times.`,
        message: 'Start fetching.',
        maxInvocations: iterations + 1,
        ...(perRun === undefined ? {} : { iterationsPerRun: perRun }),
        ...(compaction === true
          ? { compaction: { maxTokens: options.compactionTokens, keepRecentIterations: 2, model: SUMMARY_MODEL } }
          : {}),
      };
      const handle = await client.workflow.start(WORKFLOW_TYPE, {
        taskQueue,
        workflowId: `bench-history-${randomUUID()}`,
        args: [input],
      });
      const result = (await handle.result()) as AgentResult;
      const seconds = (performance.now() - started) / 1000;
      const runs = await temporalRunsOf(client, handle.workflowId);
      const transcript = await transcriptOf(client, handle.workflowId);
      const compactions = await countEvents(client, handle.workflowId, 'compaction');
      return {
        iterations: result.iterations,
        ...(perRun === undefined ? {} : { perRun }),
        ...(compaction === true ? { compaction } : {}),
        compactions,
        temporalRuns: runs.length,
        historyBytes: runs.reduce((sum, run) => sum + (run.historySize ?? 0), 0),
        historyEvents: runs.reduce((sum, run) => sum + run.historyLength, 0),
        contentBytes: jsonBytes(transcript),
        seconds,
      };
    };
    const rows: Measured[] = [];
    await worker.runUntil(async () => {
      const variants: Variant[] = [
        {},
        ...(options.perRun === undefined
          ? []
          : [{ perRun: options.perRun }, { perRun: options.perRun, compaction: true }]),
      ];
      for (const variant of variants) {
        for (const length of options.lengths) {
          const measured = await measure(length, variant);
          rows.push(measured);
          console.log(
            `  history: ${length} iterations, ${describeVariant(measured)}: ${kib(measured.historyBytes)} for ${kib(measured.contentBytes)} of content (${measured.seconds.toFixed(1)} s)`,
          );
        }
      }
    });
    console.log('');
    console.log(`### History against content (each iteration one tool result of ${options.resultBytes} B)`);
    console.log('');
    console.log(
      '| iterations | continue-as-new | Temporal runs | compactions | events | history | content | history / content | growth exponent |',
    );
    console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const [index, row] of rows.entries()) {
      const previous = rows[index - 1];
      const exponent =
        previous !== undefined && describeVariant(previous) === describeVariant(row)
          ? (
              Math.log(row.historyBytes / previous.historyBytes) / Math.log(row.iterations / previous.iterations)
            ).toFixed(2)
          : '';
      console.log(
        `| ${row.iterations} | ${describeVariant(row)} | ${row.temporalRuns} | ${row.compactions} | ${row.historyEvents} | ${kib(row.historyBytes)} | ${kib(row.contentBytes)} | ${(row.historyBytes / row.contentBytes).toFixed(2)}× | ${exponent} |`,
      );
    }
  });
}

function describeVariant({ perRun, compaction }: Variant): string {
  return `${perRun === undefined ? 'when Temporal suggests it' : `every ${perRun}`}${compaction === true ? ', with compaction' : ''}`;
}

function kib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(0)} KiB`;
}
