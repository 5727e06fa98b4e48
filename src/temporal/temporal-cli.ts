import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { loadTemporalCliConfig } from '../config/temporal-cli';
import { findOnPath, isExecutable, toolCacheDirectory, type Log } from '../go-tools/go-tool';
import { LOCAL_SERVER_DEFAULTS } from '../shared/defaults/local-server';

/** The CLI release built from source; the newest whose go.mod has no `replace` directive. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
const CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';

/** Where a Temporal CLI came from, for the progress line. */
type CliSource = 'TEMPORAL_CLI_PATH' | 'PATH' | 'cache' | 'go build';

export interface ResolvedCli {
  path: string;
  source: CliSource;
}

export type { Log } from '../go-tools/go-tool';

/** The per-user cache directory holding the built CLI, outside any clone so every clone and CI run reuses it. */
export function cliCacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return toolCacheDirectory('temporal-cli', TEMPORAL_CLI_VERSION, env);
}

const EXECUTABLE = process.platform === 'win32' ? 'temporal.exe' : 'temporal';

/**
 * Finds a Temporal CLI: `TEMPORAL_CLI_PATH`, then `temporal` on PATH, then
 * the cached build, then a one-time build with Go when `go` is installed.
 * Undefined means none could be had: the caller falls back to the SDK's
 * own download.
 */
export async function resolveTemporalCli(
  log: Log,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ResolvedCli | undefined> {
  const explicit = loadTemporalCliConfig(env).TEMPORAL_CLI_PATH;
  if (explicit !== undefined) {
    if (!(await isExecutable(explicit))) {
      throw new Error(`TEMPORAL_CLI_PATH=${explicit} is not an executable file.`);
    }
    return { path: explicit, source: 'TEMPORAL_CLI_PATH' };
  }
  const onPath = await findOnPath(EXECUTABLE, env);
  if (onPath !== undefined) return { path: onPath, source: 'PATH' };

  const cached = path.join(cliCacheDirectory(env), EXECUTABLE);
  if (await isExecutable(cached)) return { path: cached, source: 'cache' };

  const go = await findOnPath(process.platform === 'win32' ? 'go.exe' : 'go', env);
  if (go === undefined) return undefined;
  await buildWithGo(go, cached, log, env);
  return { path: cached, source: 'go build' };
}

/**
 * `go install` into a fresh directory, then an atomic rename into the cache,
 * so two processes building at once never leave a half-written binary.
 */
async function buildWithGo(go: string, target: string, log: Log, env: NodeJS.ProcessEnv): Promise<void> {
  const directory = path.dirname(target);
  await mkdir(directory, { recursive: true });
  const staging = await mkdtemp(path.join(directory, '.build-'));
  log(
    `Building the Temporal CLI ${TEMPORAL_CLI_VERSION} from source with Go. This happens once and takes a few minutes; ` +
      `the binary is cached at ${target}.`,
  );
  try {
    const first = await goInstall(go, staging, log, env);
    if (first.code !== 0 && /sum\.golang\.org|verifying module|checksum database/i.test(first.output)) {
      log('The Go checksum database cannot be reached; building once more with GOSUMDB=off for this build only.');
      const second = await goInstall(go, staging, log, { ...env, GOSUMDB: 'off' });
      if (second.code !== 0) throw buildFailure(second.output);
    } else if (first.code !== 0) {
      throw buildFailure(first.output);
    }
    await rename(path.join(staging, EXECUTABLE), target);
    log(`Built the Temporal CLI: ${target}`);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

function goInstall(
  go: string,
  gobin: string,
  log: Log,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(go, ['install', `${CLI_MODULE}@${TEMPORAL_CLI_VERSION}`], {
      env: { ...env, GOBIN: gobin, CGO_ENABLED: env.CGO_ENABLED ?? '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let downloads = 0;
    const started = Date.now();
    const ticker = setInterval(
      () =>
        log(
          `  still building the Temporal CLI (${Math.round((Date.now() - started) / 1000)} s, ${downloads} modules downloaded)`,
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

function buildFailure(output: string): Error {
  const tail = output.split('\n').slice(-15).join('\n');
  return new Error(
    `Building the Temporal CLI with Go failed:\n${tail}\n` +
      'Install the Temporal CLI yourself (https://docs.temporal.io/cli) and put it on PATH or in TEMPORAL_CLI_PATH, ' +
      'or set TEMPORAL_ADDRESS to a running server.',
  );
}
