import os from 'node:os';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createBuiltinTools } from '../../src/tools/builtin';
import { createAgentWorker } from '../../src/worker';
import { READY_LINE, type InFlightWorkerEnvironment, type MemorySample, type SampleRequest } from './worker-contract';

/**
 * The in-flight bench's worker, a process of its own so its memory is the
 * worker's alone (the scripted model and the client stay in the bench). It
 * answers each `sample` message on its IPC channel with its memory after a
 * full garbage collection (run with `--expose-gc`): what the runs in flight
 * hold, not what they have left behind.
 */

function setting(name: keyof InFlightWorkerEnvironment): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: this process is started by bench/run.ts --only inflight.`);
  return value;
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR'), shutdownSignals: [] });
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined)
    throw new Error('start this process with --expose-gc: its samples are taken after a collection');
  const connection = await NativeConnection.connect({ address: setting('INFLIGHT_TEMPORAL_ADDRESS') });
  // The worker as a user gets it: createAgentWorker's defaults, nothing tuned for the bench.
  const worker = await createAgentWorker({
    connection,
    namespace: 'default',
    taskQueue: setting('INFLIGHT_TASK_QUEUE'),
    tools: createBuiltinTools({ workspace: os.tmpdir() }),
    model: { baseURL: setting('INFLIGHT_MODEL_URL'), apiKey: 'unused', defaultModel: 'inflight' },
  });
  process.on('message', (message: SampleRequest) => {
    if (message.type !== 'sample') return;
    collect();
    const { rss, heapUsed } = process.memoryUsage();
    process.send?.({ type: 'memory', rss, heapUsed } satisfies MemorySample);
  });
  process.on('disconnect', () => worker.shutdown());
  process.stdout.write(`${READY_LINE}\n`);
  await worker.run();
  await connection.close();
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
