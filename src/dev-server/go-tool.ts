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

/** How a tool is built into its cache: what to call it in progress lines, and where it goes. */
interface GoToolTarget {
  /** What the progress lines call it, e.g. "Jaeger". */
  name: string;
  version: string;
  /** Where the executable goes. */
  target: string;
  /** What the error of a failed build adds: what to do instead. */
  hint?: string;
}

/** A Go package to build from the Go module proxy in a scratch module. */
export interface GoToolBuild extends GoToolTarget {
  /** The package path, e.g. github.com/jaegertracing/jaeger/cmd/jaeger. */
  packagePath: string;
}

/**
 * Builds `build` with `go` into its target: in a scratch module, `go get -tool package@version` (which, unlike
 * `go install package@version`, accepts a module whose go.mod has `replace` directives) then `go build`.
 */
export async function buildGoTool(go: string, build: GoToolBuild, log: Log, env: NodeJS.ProcessEnv): Promise<void> {
  await buildIntoCache(build, log, async (staging) => {
    const module = path.join(staging, 'module');
    await mkdir(module);
    await writeFile(path.join(module, 'go.mod'), 'module agentrunnertoolbuild\n');
    const output = path.join(staging, path.basename(build.target));
    await runGoStep(go, ['get', '-tool', `${build.packagePath}@${build.version}`], module, build, log, env);
    await runGoStep(go, ['build', '-o', output, build.packagePath], module, build, log, env);
    return output;
  });
}

/**
 * `go install module@version` with `GOBIN` in the staging directory: for a module whose go.mod has no `replace`
 * directive (the Temporal CLI), as its own docs install it.
 */
export async function installGoTool(
  go: string,
  install: GoToolTarget & { modulePath: string },
  log: Log,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  await buildIntoCache(install, log, async (staging) => {
    const args = ['install', `${install.modulePath}@${install.version}`];
    await runGoStep(go, args, staging, install, log, { ...env, GOBIN: staging });
    return path.join(staging, path.basename(install.target));
  });
}

/**
 * Builds into a fresh staging directory beside the target, then renames the result into place, so two processes
 * building at once never leave a half-written binary.
 */
async function buildIntoCache(
  tool: GoToolTarget,
  log: Log,
  build: (staging: string) => Promise<string>,
): Promise<void> {
  const directory = path.dirname(tool.target);
  await mkdir(directory, { recursive: true });
  const staging = await mkdtemp(path.join(directory, '.build-'));
  log(
    `Building ${tool.name} ${tool.version} from source with Go. This happens once and takes a few minutes; ` +
      `the binary is cached at ${tool.target}.`,
  );
  const started = Date.now();
  try {
    await rename(await build(staging), tool.target);
    log(`Built ${tool.name} in ${Math.round((Date.now() - started) / 1000)} s: ${tool.target}`);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * One `go` command of a build, static (`CGO_ENABLED=0` unless set); when the Go checksum database cannot be
 * reached, run once more with `GOSUMDB=off` for this command only. Throws the build's failure, with its last lines.
 */
async function runGoStep(
  go: string,
  args: string[],
  cwd: string,
  tool: GoToolTarget,
  log: Log,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const buildEnv = { ...env, CGO_ENABLED: env.CGO_ENABLED ?? '0' };
  let step = await runGo(go, args, cwd, tool.name, log, buildEnv);
  if (step.code !== 0 && /sum\.golang\.org|verifying module|checksum database/i.test(step.output)) {
    log('The Go checksum database cannot be reached; building once more with GOSUMDB=off for this build only.');
    step = await runGo(go, args, cwd, tool.name, log, { ...buildEnv, GOSUMDB: 'off' });
  }
  if (step.code !== 0) {
    const tail = step.output.split('\n').slice(-15).join('\n');
    throw new Error(`Building ${tool.name} with Go failed:\n${tail}${tool.hint === undefined ? '' : `\n${tool.hint}`}`);
  }
}

/** Runs `go`, with a progress line every so often (how long, how many modules downloaded). */
function runGo(
  go: string,
  args: string[],
  cwd: string,
  name: string,
  log: Log,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(go, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let downloads = 0;
    const started = Date.now();
    const ticker = setInterval(
      () =>
        log(
          `  still building ${name} (go ${args[0]}, ${Math.round((Date.now() - started) / 1000)} s, ${downloads} modules downloaded)`,
        ),
      LOCAL_SERVER_DEFAULTS.cliBuildProgressEveryMs,
    );
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream }).on('line', (line) => {
        lines.push(line);
        if (line.startsWith('go: downloading')) downloads += 1;
      });
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
