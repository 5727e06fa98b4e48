import { execFile } from 'node:child_process';
import { access, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  buildGoTool,
  executableName,
  findOnPath,
  isExecutable,
  toolCacheDirectory,
  type Log,
} from '../../src/dev-server/go-tool';
import type { StackVersions } from './versions';

const run = promisify(execFile);

/** The programs of the stack's Temporal, built from source with Go once and cached like the CLI. */
export interface TemporalBinaries {
  /** `go.temporal.io/server/cmd/server`: all four services in one process, as the compose image runs them. */
  server: string;
  /** `go.temporal.io/server/cmd/tools/sql`: creates the databases and applies the schema. */
  sqlTool: string;
  /** The module's `schema/postgresql/v12` folder, copied next to the programs. */
  schema: string;
  /** `github.com/temporalio/ui-server/v2/cmd/server`, with the web UI's assets built in. */
  ui: string;
}

const SERVER_MODULE = 'go.temporal.io/server';
const UI_MODULE = 'github.com/temporalio/ui-server/v2';

/** Finds the cached programs, or builds them (several minutes the first time, with progress lines). */
export async function resolveTemporalBinaries(
  versions: StackVersions,
  log: Log,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TemporalBinaries> {
  const serverDirectory = toolCacheDirectory('temporal-server', `v${versions.temporal}`, env);
  const uiDirectory = toolCacheDirectory('temporal-ui-server', `v${versions.ui}`, env);
  const binaries: TemporalBinaries = {
    server: path.join(serverDirectory, executableName('temporal-server')),
    sqlTool: path.join(serverDirectory, executableName('temporal-sql-tool')),
    schema: path.join(serverDirectory, 'schema', 'postgresql', 'v12'),
    ui: path.join(uiDirectory, executableName('temporal-ui-server')),
  };
  const missing = async (file: string) => !(await isExecutable(file));
  const complete =
    !(await missing(binaries.server)) &&
    !(await missing(binaries.sqlTool)) &&
    !(await missing(binaries.ui)) &&
    (await exists(path.join(binaries.schema, 'temporal', 'versioned')));
  if (complete) return binaries;
  const go = await findOnPath(executableName('go'), env);
  if (go === undefined) {
    throw new Error(
      'The stack builds the Temporal server and web UI from source with Go, and there is no `go` on PATH. ' +
        'Install Go 1.24 or newer (https://go.dev/dl/), or use docker-compose.yml where Docker runs.',
    );
  }
  const hint = 'The stack needs the Go module proxy (GOPROXY) to reach the Temporal server module.';
  const version = `v${versions.temporal}`;
  if (await missing(binaries.server)) {
    await buildGoTool(
      go,
      {
        name: 'the Temporal server',
        version,
        packagePath: `${SERVER_MODULE}/cmd/server`,
        target: binaries.server,
        hint,
      },
      log,
      env,
    );
  }
  if (await missing(binaries.sqlTool)) {
    await buildGoTool(
      go,
      {
        name: "Temporal's SQL tool",
        version,
        packagePath: `${SERVER_MODULE}/cmd/tools/sql`,
        target: binaries.sqlTool,
        hint,
      },
      log,
      env,
    );
  }
  if (!(await exists(path.join(binaries.schema, 'temporal', 'versioned')))) {
    await copySchema(go, version, binaries.schema, env);
  }
  if (await missing(binaries.ui)) {
    await buildGoTool(
      go,
      {
        name: 'the Temporal web UI',
        version: `v${versions.ui}`,
        packagePath: `${UI_MODULE}/cmd/server`,
        target: binaries.ui,
        hint,
      },
      log,
      env,
    );
  }
  return binaries;
}

/** Copies the server module's PostgreSQL schema (from the Go module cache) next to the programs. */
async function copySchema(go: string, version: string, target: string, env: NodeJS.ProcessEnv): Promise<void> {
  const scratch = await mkdtemp(path.join(path.dirname(path.dirname(path.dirname(target))), '.schema-'));
  try {
    await writeFile(path.join(scratch, 'go.mod'), 'module agentrunnerschema\n');
    const { stdout } = await run(go, ['mod', 'download', '-json', `${SERVER_MODULE}@${version}`], {
      cwd: scratch,
      env,
      maxBuffer: 1 << 20,
    });
    const { Dir: moduleDirectory } = JSON.parse(stdout) as { Dir?: string };
    if (moduleDirectory === undefined) throw new Error(`go mod download did not say where ${SERVER_MODULE} is.`);
    await mkdir(path.dirname(target), { recursive: true });
    await cp(path.join(moduleDirectory, 'schema', 'postgresql', 'v12'), target, { recursive: true });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
