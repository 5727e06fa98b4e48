import { spawn } from 'node:child_process';
import { access, constants, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { loadTemporalCliConfig } from '../config/temporal-cli';
import { LOCAL_SERVER_DEFAULTS } from '../shared/defaults/local-server';

/**
 * Programs the project builds from Go source once and keeps in a per-user cache (the Temporal CLI, Jaeger for the
 * tracing test): `<cache>/agent-runner/<tool>/<version>/`, outside any clone, so every clone and CI run reuses it.
 */

/** Progress and notices; the demo prints them, tests keep them short. */
export type Log = (line: string) => void;

/** The cache directory of `tool` at `version`. */
export function toolCacheDirectory(tool: string, version: string, env: NodeJS.ProcessEnv = process.env): string {
  const config = loadTemporalCliConfig(env);
  const base =
    config.AGENT_RUNNER_CACHE_DIR ??
    (process.platform === 'darwin'
      ? path.join(os.homedir(), 'Library', 'Caches')
      : process.platform === 'win32'
        ? (config.LOCALAPPDATA ?? path.join(os.homedir(), 'AppData', 'Local'))
        : (config.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache')));
  return path.join(base, 'agent-runner', tool, version);
}

/** An executable's file name on this platform. */
export function executableName(name: string): string {
  return process.platform === 'win32' ? `${name}.exe` : name;
}

export async function findOnPath(name: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  for (const directory of (env.PATH ?? '').split(path.delimiter)) {
    if (directory === '') continue;
    const candidate = path.join(directory, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A Go package to build from the Go module proxy. */
export interface GoToolBuild {
  /** What the progress lines call it, e.g. "Jaeger v1.76.0". */
  title: string;
  /** The package path, e.g. github.com/jaegertracing/jaeger/cmd/jaeger. */
  packagePath: string;
  version: string;
  /** Where the executable goes. */
  target: string;
}

/**
 * Builds `build` with `go` into its target: in a scratch module, `go get -tool package@version` (which, unlike
 * `go install package@version`, accepts a module whose go.mod has `replace` directives) then `go build`, into a
 * staging directory renamed into place, so two processes building at once never leave a half-written binary.
 */
export async function buildGoTool(go: string, build: GoToolBuild, log: Log, env: NodeJS.ProcessEnv): Promise<void> {
  const directory = path.dirname(build.target);
  await mkdir(directory, { recursive: true });
  const staging = await mkdtemp(path.join(directory, '.build-'));
  log(
    `Building ${build.title} from source with Go. This happens once and takes several minutes; the binary is cached at ${build.target}.`,
  );
  try {
    const module = path.join(staging, 'module');
    await mkdir(module);
    await writeFile(path.join(module, 'go.mod'), 'module agentrunnertoolbuild\n');
    // A static binary, as the Temporal CLI's build makes.
    const buildEnv = { ...env, CGO_ENABLED: env.CGO_ENABLED ?? '0' };
    const output = path.join(staging, path.basename(build.target));
    for (const args of [
      ['get', '-tool', `${build.packagePath}@${build.version}`],
      ['build', '-o', output, build.packagePath],
    ]) {
      const step = await runGo(go, args, module, build.title, log, buildEnv);
      if (step.code !== 0) throw buildFailure(build.title, step.output);
    }
    await rename(output, build.target);
    log(`Built ${build.title}: ${build.target}`);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

function runGo(
  go: string,
  args: string[],
  cwd: string,
  title: string,
  log: Log,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(go, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    const started = Date.now();
    const ticker = setInterval(
      () => log(`  still building ${title} (go ${args[0]}, ${Math.round((Date.now() - started) / 1000)} s)`),
      LOCAL_SERVER_DEFAULTS.cliBuildProgressEveryMs,
    );
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream }).on('line', (line) => lines.push(line));
    }
    child.on('error', (error) => {
      clearInterval(ticker);
      reject(error);
    });
    child.on('close', (code) => {
      clearInterval(ticker);
      resolve({ code: code ?? 1, output: lines.join('\n') });
    });
  });
}

function buildFailure(title: string, output: string): Error {
  const tail = output.split('\n').slice(-15).join('\n');
  return new Error(`Building ${title} with Go failed:\n${tail}`);
}
