import { readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { packagesFor, provisionSystemPackages } from '../scripts/system-packages';
import { AGENT_PRELOADED_MODULES } from '../src/worker/plugin';
import { startDevServer } from '../src/dev-server/dev-server';

/**
 * One real Temporal dev server (in memory) and one workflow bundle for the
 * whole suite. `TEMPORAL_TEST_ADDRESS` points the tests at a server you run
 * yourself instead; it must have the project's search attributes.
 */
/** The part of jest's global configuration the setup reads. */
interface RunConfig {
  rootDir: string;
  testPathPatterns?: {
    isSet(): boolean;
    toExecutor(options: { rootDir: string }): { isMatch(absolutePath: string): boolean };
  };
}

export default async function globalSetup(globalConfig: RunConfig): Promise<void> {
  const log = (line: string) => process.stderr.write(`[test setup] ${line}\n`);
  // Which Node runs the suite: the project brings Node 24 (the `node` devDependency), whatever the system's is.
  log(`Node ${process.version} at ${process.execPath}`);
  // Chromium and PostgreSQL, for the tests of this run that need them: installed on first use, or a command to run.
  await provisionSystemPackages(packagesFor(globalConfig.rootDir, await testFilesOfRun(globalConfig)), log);
  if (process.env.TEMPORAL_TEST_ADDRESS) {
    log(`using the Temporal server at ${process.env.TEMPORAL_TEST_ADDRESS}`);
  } else {
    const server = await startDevServer({ port: 0, uiPort: 0, log });
    process.env.TEMPORAL_TEST_ADDRESS = server.address;
    process.env.TEMPORAL_TEST_SERVER_PID = String(server.pid ?? '');
    (globalThis as { stopTestServer?: () => Promise<void> }).stopTestServer = server.stop;
    log(`Temporal dev server at ${server.address} (CLI: ${server.source})`);
  }

  const started = Date.now();
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('../src/workflows'),
    // As the plugin bundles them: the schemas are built by a thread's first run and shared by the rest.
    preloadModules: [...AGENT_PRELOADED_MODULES],
    logger: {
      trace() {},
      debug() {},
      info() {},
      warn: (message) => log(message),
      error: (message) => log(message),
      log() {},
    },
  });
  const bundlePath = path.join(os.tmpdir(), `agent-runner-workflows-${process.pid}.js`);
  await writeFile(bundlePath, bundle.code);
  process.env.AGENT_TEST_WORKFLOW_BUNDLE = bundlePath;
  log(`workflow bundle ready in ${Date.now() - started} ms`);
}

/** The test files this run selected by path (`npx jest test/stack`), or undefined when it runs them all. */
async function testFilesOfRun(globalConfig: RunConfig): Promise<string[] | undefined> {
  const patterns = globalConfig.testPathPatterns;
  if (typeof patterns?.toExecutor !== 'function' || !patterns.isSet()) return undefined;
  const executor = patterns.toExecutor({ rootDir: globalConfig.rootDir });
  const testFolder = path.join(globalConfig.rootDir, 'test');
  const files = (await readdir(testFolder, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
  return files.filter((file) => executor.isMatch(file));
}
