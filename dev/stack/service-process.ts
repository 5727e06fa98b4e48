import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import { stopChild } from '../../src/os/stop-child';
import { STACK_DEFAULTS } from '../../src/shared/defaults/stack';
import type { Log } from '../../src/dev-server/go-tool';
import { openPrivateLog } from './private-files';
import { waitUntil } from './wait-until';

/** How to run one of the stack's Node processes (a worker, an API). */
export interface ServiceSpec {
  /** e.g. worker-1, api-2. */
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  logFile: string;
  /** The line that says it is up (a worker's "Worker polling…", the API's "Agent API at…"). */
  readyLine?: RegExp;
  /** Or a question that says it is up (the web UI answers HTTP). */
  probe?: () => Promise<boolean>;
}

/** A process of the stack that can be stopped, SIGKILLed and started again with the same settings. */
export interface ServiceProcess {
  readonly name: string;
  /** Starts it and waits for its ready line. */
  start(): Promise<void>;
  /** SIGTERM (a worker drains its tasks), then SIGKILL after the grace time. */
  stop(): Promise<void>;
  /** SIGKILL, at once: a crash. */
  kill(): Promise<void>;
  pid(): number | undefined;
  /** The ready line of the last start. */
  readyText(): string | undefined;
}

export function serviceProcess(spec: ServiceSpec, log: Log): ServiceProcess {
  let child: ChildProcess | undefined;
  let ready: string | undefined;
  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  return {
    name: spec.name,
    async start() {
      if (running()) return;
      ready = undefined;
      const file = (await openPrivateLog(spec.logFile)).createWriteStream();
      file.write(`--- ${spec.name} start, ${new Date().toISOString()} ---\n`);
      const started = spawn(spec.command, spec.args, {
        cwd: spec.cwd,
        env: spec.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own process group: a Ctrl-C in the terminal reaches the stack alone, which stops the parts in order.
        detached: true,
      });
      child = started;
      let tail = '';
      for (const stream of [started.stdout, started.stderr]) {
        stream.pipe(file, { end: false });
        readline.createInterface({ input: stream }).on('line', (line) => {
          tail = `${tail}${line}\n`.slice(-4000);
          if (ready === undefined && spec.readyLine?.test(line) === true) ready = line;
        });
      }
      started.once('exit', () => setTimeout(() => file.end(), 100));
      await waitUntil(spec.name, STACK_DEFAULTS.startTimeoutMs, log, async () => {
        if (started.exitCode !== null || started.signalCode !== null) {
          throw new Error(`${spec.name} exited (${started.exitCode ?? started.signalCode}):\n${tail}`);
        }
        if (ready === undefined && spec.probe !== undefined && (await spec.probe())) ready = 'answers';
        return ready !== undefined;
      });
    },
    stop: async () => {
      if (child !== undefined) await stopChild(child, STACK_DEFAULTS.stopGraceMs);
    },
    async kill() {
      if (!running() || child === undefined) return;
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
    pid: () => (running() ? child?.pid : undefined),
    readyText: () => ready,
  };
}
