import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { resolveTemporalCli } from '../../src/dev-server/temporal-cli';

export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
const TSX = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx');

/** The environment of a fresh shell: PATH and HOME (and the cache dir) only, plus `extra`; nothing of the test's own. */
export function cleanEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  if (process.env.XDG_CACHE_HOME) env.XDG_CACHE_HOME = process.env.XDG_CACHE_HOME;
  return { ...env, ...extra };
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (bounded by `timeoutMs`) and collects its output; it runs in the project's root unless `cwd` says otherwise. */
export function runProcess(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {},
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? PROJECT_ROOT,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `${command} ${args.join(' ')} did not finish in ${options.timeoutMs} ms.\nstdout: ${stdout}\nstderr: ${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs one of the project's TypeScript entry points with tsx, as `npm run` does. */
export function runScript(
  script: string,
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; args?: string[] } = {},
): Promise<Finished> {
  return runProcess(TSX, [script, ...(options.args ?? [])], options);
}

/** Starts a long-running entry point; resolves once `readyLine` appears on stdout (it bundles the workflows first, so give it time). */
export function startScript(
  script: string,
  env: NodeJS.ProcessEnv,
  readyLine: RegExp,
  timeoutMs = 120_000,
  args: string[] = [],
): Promise<{ child: ChildProcess; output: () => string }> {
  return startCommand(TSX, [script, ...args], env, readyLine, timeoutMs);
}

/** Starts any long-running command as {@link startScript} starts an entry point (a guide's `npm start` through bash). */
export function startCommand(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  readyLine: RegExp,
  timeoutMs = 120_000,
): Promise<{ child: ChildProcess; output: () => string }> {
  const script = [command, ...args].join(' ');
  return new Promise((resolve, reject) => {
    // Its own process group, so stopChild can signal tsx and its node child together, as Ctrl-C in a terminal does.
    const child = spawn(command, args, {
      cwd: PROJECT_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`${script} did not print ${readyLine} in ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (readyLine.test(output)) {
        clearTimeout(timer);
        resolve({ child, output: () => output });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready:\n${output}`)));
  });
}

/** The same Temporal CLI the suite's server runs on. */
export async function temporalCli(): Promise<string> {
  const cli = await resolveTemporalCli(() => {});
  if (cli === undefined) throw new Error('No Temporal CLI could be found or built; the CLI tests need one.');
  return cli.path;
}

/**
 * Signals a child's process group (as Ctrl-C does) and waits for it to exit
 * and for its output to be read to the end ('close', not 'exit': the last
 * lines may still be in the pipe when it exits); resolves to its exit code.
 */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGINT'): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    const closed = child.exitCode !== null && child.stdout?.closed !== false && child.stderr?.closed !== false;
    if (closed) return resolve(child.exitCode);
    child.once('close', (code) => resolve(code));
    if (child.exitCode === null) process.kill(-(child.pid as number), signal);
  });
}
