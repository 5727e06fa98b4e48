import { median } from '../statistics';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { Context } from '@temporalio/activity';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { withLocalStack } from '../../scripts/local-stack';
import { createActivities } from '../../src/activities';
import type { ChatCompletionRequest, ScriptStep } from '../../src/scripted-model/script';
import { createBuiltinTools } from '../../src/tools/builtin';
import { createToolRegistry } from '../../src/tools/tool-registry';

/**
 * `npx tsx bench/anchors/heartbeat-at-start.ts`: what a heartbeat at the start
 * of every activity cost. The bare loop (`bare-loop-workflow.ts`, one model
 * activity and one tool activity per iteration) runs on two workers of the
 * tuned dev server, one with the runner's activities as they are and one whose
 * activities heartbeat once more as they start, as `keepHeartbeating` used to;
 * runs of the two are interleaved, so they share the machine's state.
 */
const RUNS = 30;
const ITERATIONS = 10;

function agent(request: ChatCompletionRequest): ScriptStep {
  const done = request.messages.filter((message) => message.role === 'assistant').length;
  if (done + 1 >= ITERATIONS) return { content: 'done' };
  return { toolCalls: [{ name: 'calculator', arguments: { expression: `${done} * 2` } }] };
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  await withLocalStack(async ({ model, client, workerConnection }) => {
    model.respond('heartbeat-ab', agent);
    const modelSettings = { baseURL: model.baseURL, apiKey: 'unused', defaultModel: 'heartbeat-ab' };
    const plain = createActivities({
      registry: createToolRegistry(createBuiltinTools({ workspace: os.tmpdir() })),
      model: modelSettings,
    });
    const heartbeatFirst =
      <Arguments extends unknown[], Result>(activity: (...args: Arguments) => Promise<Result>) =>
      (...args: Arguments): Promise<Result> => {
        Context.current().heartbeat();
        return activity(...args);
      };
    const variants = {
      'no heartbeat at start': plain,
      'heartbeat at start': {
        ...plain,
        callModel: heartbeatFirst(plain.callModel),
        executeTool: heartbeatFirst(plain.executeTool),
      },
    };
    const queue = `heartbeat-ab-${randomUUID()}`;
    const workers = await Promise.all(
      Object.entries(variants).map(([name, activities]) =>
        Worker.create({
          connection: workerConnection,
          namespace: 'default',
          taskQueue: `${queue}-${name}`,
          workflowsPath: require.resolve('./bare-loop-workflow'),
          activities,
          maxHeartbeatThrottleInterval: '1 second',
        }),
      ),
    );
    const [first, second] = workers;
    if (first === undefined || second === undefined) throw new Error('two workers expected');
    await first.runUntil(() =>
      second.runUntil(async () => {
        const times: Record<string, number[]> = {};
        for (let run = -2; run < RUNS; run += 1) {
          for (const name of Object.keys(variants)) {
            const started = performance.now();
            await client.workflow.execute('bareLoopWorkflow', {
              taskQueue: `${queue}-${name}`,
              workflowId: `heartbeat-ab-${randomUUID()}`,
              args: [{ model: 'heartbeat-ab', message: 'Double a few numbers.', tools: ['calculator'] }],
            });
            if (run >= 0) (times[name] ??= []).push((performance.now() - started) / ITERATIONS);
          }
        }
        for (const [name, values] of Object.entries(times)) {
          console.log(
            `bare loop, ${name}: ${median(values).toFixed(1)} ms per iteration (median of ${RUNS} runs, interleaved)`,
          );
        }
      }),
    );
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
