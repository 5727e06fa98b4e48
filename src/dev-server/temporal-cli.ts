import path from 'node:path';
import { loadTemporalCliConfig } from '../config/temporal-cli';
import { findOnPath, installGoTool, isExecutable, toolCacheDirectory, type Log } from './go-tool';

/** The CLI release built from source; the newest whose go.mod has no `replace` directive. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
const CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';

/** Where a Temporal CLI came from, for the progress line. */
type CliSource = 'TEMPORAL_CLI_PATH' | 'PATH' | 'cache' | 'go build';

export interface ResolvedCli {
  path: string;
  source: CliSource;
}

export type { Log } from './go-tool';

/** The per-user cache directory holding the built CLI, outside any clone so every clone and CI run reuses it. */
export function cliCacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return toolCacheDirectory('temporal-cli', TEMPORAL_CLI_VERSION, env);
}

const EXECUTABLE = process.platform === 'win32' ? 'temporal.exe' : 'temporal';

/**
 * Finds a Temporal CLI: `TEMPORAL_CLI_PATH`, `temporal` on PATH, the cached build, a one-time build with Go;
 * undefined, and the caller uses the SDK's download.
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
  await installGoTool(
    go,
    {
      name: 'the Temporal CLI',
      version: TEMPORAL_CLI_VERSION,
      target: cached,
      modulePath: CLI_MODULE,
      hint:
        'Install the Temporal CLI yourself (https://docs.temporal.io/cli) and put it on PATH or in TEMPORAL_CLI_PATH, ' +
        'or set TEMPORAL_ADDRESS to a running server.',
    },
    log,
    env,
  );
  return { path: cached, source: 'go build' };
}
