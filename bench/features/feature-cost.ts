import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { z } from 'zod';
import { AesGcmPayloadCodec } from '../../src/codec/aes-gcm-codec';
import type { ChatCompletionRequest, ScriptStep } from '../../src/scripted-model/script';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import type { AgentResult } from '../../src/shared/agent-result';
import { startDevServer } from '../../src/dev-server/dev-server';
import { createBuiltinTools } from '../../src/tools/builtin';
import { defineTool, type ToolDefinition } from '../../src/tools/define-tool';
import { createAgentWorker, type AgentWorkerOptions } from '../../src/worker';
import { median } from '../statistics';
import { addThreadCpu, threadCpuMs, threadKinds, type ThreadKind } from './thread-cpu';

/**
 * What a feature that wraps every payload or every step costs per iteration: the same runs, interleaved on one
 * dev server, on a worker and client without the feature and on ones with it. Each variant is a worker and a
 * client of its own; the plain one is the anchor every ratio is taken against.
 */
export interface FeatureVariant {
  name: string;
  /** The worker's options beyond the common ones (a data converter, plugins, MCP servers). */
  worker?: Pick<AgentWorkerOptions, 'overrides' | 'mcpServers'>;
  /** Tools the variant's worker has beside the built-in ones. */
  extraTools?: ToolDefinition[];
  /**
   * The tool each iteration calls instead of the anchor's (`calculator`, or `read_file` with a result size), with
   * the arguments for iteration `done`.
   */
  call?: { name: string; arguments: (done: number) => Record<string, unknown> };
  dataConverter?: DataConverter;
  /** Called once the variant's runs are done (an exporter to flush, a provider to shut down). */
  close?: () => Promise<void>;
}

export interface FeatureCase {
  iterations: number;
  /** Bytes of each tool result (0: the calculator's few bytes). */
  resultBytes: number;
  /** The scripted model's latency per call. @default 0 */
  latencyMs?: number;
}

export interface FeatureRow extends FeatureCase {
  /** Median milliseconds per iteration, by variant name. */
  msPerIteration: Record<string, number>;
  /**
   * Median CPU milliseconds (user + system, every thread of this process: worker, client, scripted model) per
   * iteration, by variant name: what other processes' load on the machine does not inflate.
   */
  cpuMsPerIteration: Record<string, number>;
  /** History bytes of the last run, by variant name. */
  historyBytes: Record<string, number>;
  /** CPU milliseconds per iteration by kind of thread, every variant's measured runs together. */
  threadCpuMsPerIteration: Record<ThreadKind, number>;
}

/** A variant with payloads encrypted by the AES-256-GCM codec (a fresh key). */
export function codecVariant(): FeatureVariant {
  const codec = new AesGcmPayloadCodec([{ id: 'bench', key: randomBytes(32) }]);
  const dataConverter: DataConverter = { payloadCodecs: [codec] };
  return { name: 'codec', dataConverter, worker: { overrides: { dataConverter } } };
}

/**
 * A variant whose iterations call `echo`, a tool defined in the worker (`defineTool`) that does what
 * server-everything's `echo` does: the baseline an MCP tool's cost is read against.
 */
export function definedEchoVariant(): FeatureVariant {
  const echo = defineTool({
    name: 'echo',
    description: 'Echoes back the input string',
    parameters: z.object({ message: z.string() }),
    execute: ({ message }) => `Echo: ${message}`,
  });
  return { name: 'defined echo', extraTools: [echo], call: { name: 'echo', arguments: echoArguments } };
}

/** A variant whose iterations call `@modelcontextprotocol/server-everything`'s `echo`, started by the worker over stdio. */
export function mcpEchoVariant(): FeatureVariant {
  const server = path.join(__dirname, '..', '..', 'node_modules', '@modelcontextprotocol', 'server-everything');
  return {
    name: 'MCP echo',
    worker: {
      mcpServers: { everything: { command: process.execPath, args: [path.join(server, 'dist', 'index.js'), 'stdio'] } },
    },
    call: { name: 'everything__echo', arguments: echoArguments },
  };
}

function echoArguments(done: number): Record<string, unknown> {
  return { message: `${done} * 2` };
}

function agent(
  iterations: number,
  call: { name: string; arguments: (done: number) => Record<string, unknown> },
  delayMs: number,
) {
  return (request: ChatCompletionRequest): ScriptStep => {
    const done = request.messages.filter((message) => message.role === 'assistant').length;
    if (done + 1 >= iterations) return { content: `Finished after ${done} tool calls.`, delayMs };
    return { toolCalls: [{ name: call.name, arguments: call.arguments(done) }], delayMs };
  };
}

/** The anchor's call: the calculator's few bytes, or `read_file` of `file`. */
function anchorCall(file: string | undefined) {
  return file === undefined
    ? { name: 'calculator', arguments: (done: number) => ({ expression: `${done} * 2` }) }
    : { name: 'read_file', arguments: () => ({ path: file }) };
}

const collectGarbage = (globalThis as { gc?: () => void }).gc;

/** Runs every case on every variant, `runs` times each after one warm-up, interleaved. */
export async function measureFeatureCost(options: {
  variants: FeatureVariant[];
  cases: FeatureCase[];
  runs: number;
  log: (line: string) => void;
}): Promise<FeatureRow[]> {
  const variants: FeatureVariant[] = [{ name: 'plain' }, ...options.variants];
  const dev = await startDevServer({ port: 0, uiPort: 0, log: () => undefined });
  const model = await ScriptedModelServer.start();
  const workerConnection = await NativeConnection.connect({ address: dev.address });
  const clientConnection = await Connection.connect({ address: dev.address });
  const rows: FeatureRow[] = [];
  try {
    const sides = await Promise.all(
      variants.map(async (variant) => {
        const taskQueue = `feature-${variant.name}-${randomUUID()}`;
        const worker: Worker = await createAgentWorker({
          connection: workerConnection,
          namespace: 'default',
          taskQueue,
          tools: [...createBuiltinTools({ workspace: os.tmpdir() }), ...(variant.extraTools ?? [])],
          model: { baseURL: model.baseURL, apiKey: 'unused', defaultModel: 'feature' },
          ...variant.worker,
        });
        const client = new Client({
          connection: clientConnection,
          ...(variant.dataConverter === undefined ? {} : { dataConverter: variant.dataConverter }),
        });
        return { variant, worker, client, taskQueue, running: worker.run() };
      }),
    );
    try {
      for (const entry of options.cases) {
        const file = entry.resultBytes > 0 ? writeResultFile(entry.resultBytes) : undefined;
        const modelName = (variant: FeatureVariant) =>
          `feature-${entry.iterations}-${entry.resultBytes}-${entry.latencyMs ?? 0}-${variant.name}`;
        const callOf = (variant: FeatureVariant) => variant.call ?? anchorCall(file);
        for (const variant of variants) {
          model.respond(modelName(variant), agent(entry.iterations, callOf(variant), entry.latencyMs ?? 0));
        }
        const times: Record<string, number[]> = Object.fromEntries(variants.map((variant) => [variant.name, []]));
        const cpuTimes: Record<string, number[]> = Object.fromEntries(variants.map((variant) => [variant.name, []]));
        const historyBytes: Record<string, number> = {};
        const threadCpu = new Map<number, { name: string; ms: number }>();
        let measuredIterations = 0;
        for (let run = -1; run < options.runs; run += 1) {
          for (const side of sides) {
            const workflowId = `feature-${side.variant.name}-${randomUUID()}`;
            // A major collection of earlier runs' garbage is not this run's cost (a process started with --expose-gc).
            collectGarbage?.();
            const started = performance.now();
            const cpuAtStart = process.cpuUsage();
            const threadsAtStart = threadCpuMs();
            const result = (await side.client.workflow.execute(WORKFLOW_TYPE, {
              taskQueue: side.taskQueue,
              workflowId,
              args: [
                {
                  model: modelName(side.variant),
                  tools: [callOf(side.variant).name],
                  message: 'Double a few numbers.',
                },
              ],
            })) as AgentResult;
            if (result.iterations !== entry.iterations)
              throw new Error(`${side.variant.name} ran ${result.iterations} iterations, not ${entry.iterations}`);
            if (run >= 0) {
              times[side.variant.name]!.push((performance.now() - started) / result.iterations);
              const cpu = process.cpuUsage(cpuAtStart);
              cpuTimes[side.variant.name]!.push((cpu.user + cpu.system) / 1000 / result.iterations);
              addThreadCpu(threadCpu, threadsAtStart, threadCpuMs());
              measuredIterations += result.iterations;
            }
            if (run === options.runs - 1) {
              const history = await side.client.workflow.getHandle(workflowId).fetchHistory();
              historyBytes[side.variant.name] = Buffer.byteLength(JSON.stringify(history));
            }
          }
        }
        const row: FeatureRow = {
          ...entry,
          msPerIteration: Object.fromEntries(Object.entries(times).map(([name, values]) => [name, median(values)])),
          cpuMsPerIteration: Object.fromEntries(
            Object.entries(cpuTimes).map(([name, values]) => [name, median(values)]),
          ),
          historyBytes,
          threadCpuMsPerIteration: Object.fromEntries(
            Object.entries(threadKinds(threadCpu)).map(([kind, ms]) => [kind, ms / measuredIterations]),
          ) as Record<ThreadKind, number>,
        };
        options.log(
          `[features] ${caseLabel(entry)}: ` +
            variants.map((variant) => `${variant.name} ${row.msPerIteration[variant.name]!.toFixed(1)} ms`).join(', '),
        );
        rows.push(row);
      }
    } finally {
      for (const side of sides) side.worker.shutdown();
      await Promise.all(sides.map((side) => side.running));
      for (const variant of variants) await variant.close?.();
    }
  } finally {
    await clientConnection.close();
    await workerConnection.close();
    await model.close();
    await dev.stop();
  }
  return rows;
}

/** The rows as a table: ms per iteration per variant and its ratio to the plain runs, and history size. */
export function featureCostTable(
  rows: readonly Pick<FeatureRow, keyof FeatureCase | 'msPerIteration' | 'historyBytes'>[],
): string[] {
  const names = Object.keys(rows[0]?.msPerIteration ?? {});
  const lines = [
    `${'case'.padEnd(28)}${names.map((name) => name.padStart(18)).join('')}`,
    ...rows.map((row) => {
      const plain = row.msPerIteration.plain ?? Number.NaN;
      const label = caseLabel(row);
      return `${label.padEnd(28)}${names
        .map((name) => {
          const value = row.msPerIteration[name] ?? Number.NaN;
          return `${value.toFixed(1)} ms ${name === 'plain' ? '     ' : `${(value / plain).toFixed(2)}×`}`.padStart(18);
        })
        .join('')}`;
    }),
    `${'history bytes (last run)'.padEnd(28)}${names
      .map((name) => `${((rows.at(-1)?.historyBytes[name] ?? 0) / 1024).toFixed(0)} KiB`.padStart(18))
      .join('')}`,
  ];
  return lines;
}

export function caseLabel(entry: FeatureCase): string {
  return (
    `${entry.iterations} iterations` +
    (entry.resultBytes > 0 ? `, ${entry.resultBytes / 1024} KB` : '') +
    (entry.latencyMs ? `, ${entry.latencyMs} ms model` : '')
  );
}

function writeResultFile(bytes: number): string {
  const name = `agent-runner-feature-${bytes}-${process.pid}.txt`;
  writeFileSync(path.join(os.tmpdir(), name), 'All work and no play. '.repeat(Math.ceil(bytes / 22)).slice(0, bytes));
  return name;
}
