import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import path from 'node:path';
import { between } from './seeded-random';
import { READY_LINE, type ChaosWorkerEnvironment } from './worker-contract';

const WORKER_SCRIPT = path.join(__dirname, 'worker-process.ts');
/** The repository root, where `--import tsx` resolves. */
const ROOT = path.resolve(__dirname, '../..');
/** A worker that has not printed its ready line by then is reported, not waited for. */
const START_TIMEOUT_MS = 60_000;
/** Restarts after exits nobody asked for, before the supervisor gives up. */
const MAX_UNEXPECTED_EXITS = 5;

/**
 * Runs the chaos worker as a child process and, while killing is on,
 * SIGKILLs it at random moments and starts a new one at once. The worker
 * runs under `node --import tsx` (not the `tsx` command, which would put a
 * second process between the signal and the worker).
 */
export class WorkerSupervisor {
  /** SIGKILLs sent. */
  kills = 0;
  /** Exits nobody asked for (a crash of the worker itself). */
  unexpectedExits = 0;
  /** Milliseconds from spawn to the ready line, per start. */
  readonly startTimes: number[] = [];

  private child?: ChildProcess;
  private stopped = false;
  private killing?: { random: () => number; minMs: number; maxMs: number; timer?: NodeJS.Timeout };

  constructor(
    private readonly environment: ChaosWorkerEnvironment,
    private readonly logFile: string,
  ) {}

  /** Starts a worker and resolves once it is ready. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.spawnWorker();
  }

  /**
   * From now on, SIGKILL the worker `minMs`..`maxMs` from now and after each next start becomes ready, but a restarted
   * worker never sooner than its start took: under load a worker takes 10-17 s to start, and killed 1-4 s after it
   * would be up a fifth of the time.
   */
  startKilling(random: () => number, minMs: number, maxMs: number): void {
    this.killing = { random, minMs, maxMs };
    this.scheduleKill(0);
  }

  /** No more kills; the current worker keeps running. */
  stopKilling(): void {
    if (this.killing?.timer !== undefined) clearTimeout(this.killing.timer);
    this.killing = undefined;
  }

  /** The process id of the worker running now, if one is. */
  get workerPid(): number | undefined {
    return this.child?.pid;
  }

  /** Stops killing and ends the worker for good. */
  async stop(): Promise<void> {
    this.stopKilling();
    this.stopped = true;
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  private scheduleKill(leastMs: number): void {
    const killing = this.killing;
    if (killing === undefined || this.stopped) return;
    killing.timer = setTimeout(
      () => {
        if (this.killing !== killing || this.stopped) return;
        this.kills += 1;
        // The exit handler starts the next worker.
        this.child?.kill('SIGKILL');
      },
      Math.max(between(killing.random, killing.minMs, killing.maxMs), leastMs),
    );
  }

  private async spawnWorker(): Promise<void> {
    const started = performance.now();
    const log = openSync(this.logFile, 'a');
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER_SCRIPT], {
      cwd: ROOT,
      env: { ...process.env, ...this.environment },
      stdio: ['ignore', 'pipe', log],
    });
    closeSync(log);
    this.child = child;
    child.on('exit', (code, signal) => {
      if (this.stopped || this.child !== child) return;
      if (signal !== 'SIGKILL') {
        this.unexpectedExits += 1;
        console.error(`chaos: the worker exited by itself (code ${code}, signal ${signal}); see ${this.logFile}`);
        // A worker that cannot start would be restarted forever; its runs end up stuck and the report says so.
        if (this.unexpectedExits > MAX_UNEXPECTED_EXITS) return;
      }
      this.spawnWorker().catch((error: unknown) => {
        console.error(`chaos: could not restart the worker: ${error instanceof Error ? error.message : String(error)}`);
      });
    });
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(
        () =>
          reject(new Error(`The chaos worker did not start within ${START_TIMEOUT_MS / 1000} s; see ${this.logFile}.`)),
        START_TIMEOUT_MS,
      );
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (!output.split('\n').includes(READY_LINE)) return;
        child.stdout?.off('data', onData);
        clearTimeout(timer);
        const startMs = performance.now() - started;
        this.startTimes.push(startMs);
        this.scheduleKill(startMs);
        resolve();
      };
      child.stdout?.on('data', onData);
      // A worker killed before it was ready resolves too: its exit handler has started the next one.
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
