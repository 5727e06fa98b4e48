import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  buildGoTool,
  executableName,
  findOnPath,
  isExecutable,
  toolCacheDirectory,
  type Log,
} from '../../src/dev-server/go-tool';
import { stopChild } from '../../src/os/stop-child';
import { freePort } from '../../src/os/ports';

/**
 * Jaeger, an OTLP receiver with a query API, for the tracing test and for looking at traces locally
 * (`npm run jaeger:install`). Version 2's all-in-one (`cmd/jaeger`, an OpenTelemetry Collector distribution),
 * built from source with Go like the Temporal CLI, because no registry this project uses ships it.
 */
const JAEGER_VERSION = 'v1.76.0';
const JAEGER_PACKAGE = 'github.com/jaegertracing/jaeger/cmd/jaeger';

/** Finds Jaeger: `jaeger` on PATH, else the cached build, else builds it once with Go. */
export async function resolveJaeger(log: Log, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const onPath = await findOnPath(executableName('jaeger'), env);
  if (onPath !== undefined) return onPath;
  const cached = path.join(toolCacheDirectory('jaeger', JAEGER_VERSION, env), executableName('jaeger'));
  if (await isExecutable(cached)) return cached;
  const go = await findOnPath(executableName('go'), env);
  if (go === undefined) throw new Error('Jaeger is not on PATH nor cached, and there is no Go toolchain to build it.');
  await buildGoTool(
    go,
    { name: 'Jaeger', packagePath: JAEGER_PACKAGE, version: JAEGER_VERSION, target: cached },
    log,
    env,
  );
  return cached;
}

/** A Jaeger process on 127.0.0.1 with in-memory storage. */
export interface RunningJaeger {
  /** The OTLP/HTTP endpoint, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  otlpEndpoint: string;
  /** The query API and UI, e.g. `${queryUrl}/api/traces/<id>`. */
  queryUrl: string;
  stop(): Promise<void>;
}

/** Starts `binary` on free loopback ports, in-memory, and waits until its query API answers. */
export async function startJaeger(binary: string, timeoutMs = 30_000): Promise<RunningJaeger> {
  const [otlpPort, queryPort, grpcPort] = [await freePort(), await freePort(), await freePort()];
  const directory = await mkdtemp(path.join(os.tmpdir(), 'jaeger-'));
  const config = path.join(directory, 'config.yaml');
  await writeFile(config, jaegerConfig(otlpPort, queryPort, grpcPort));
  const child = spawn(binary, ['--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  for (const stream of [child.stdout, child.stderr])
    stream?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const queryUrl = `http://127.0.0.1:${queryPort}`;
  const stop = async () => {
    await stopChild(child);
    await rm(directory, { recursive: true, force: true });
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`Jaeger exited (${child.exitCode}):\n${output.join('').slice(-3000)}`);
    }
    try {
      const response = await fetch(`${queryUrl}/api/services`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`Jaeger did not answer within ${timeoutMs} ms:\n${output.join('').slice(-3000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { otlpEndpoint: `http://127.0.0.1:${otlpPort}`, queryUrl, stop };
}

/** Jaeger v2's configuration: OTLP/HTTP in, memory storage, the query API; nothing else listens. */
function jaegerConfig(otlpPort: number, queryPort: number, grpcPort: number): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${queryPort}
    grpc:
      endpoint: 127.0.0.1:${grpcPort}
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${otlpPort}
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`;
}
