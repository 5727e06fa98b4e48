import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { AGENT_PRELOADED_MODULES } from '../src/worker/plugin';
import { startDevServer } from '../src/temporal/dev-server';

/**
 * One real Temporal dev server (in memory) and one workflow bundle for the
 * whole suite. `TEMPORAL_TEST_ADDRESS` points the tests at a server you run
 * yourself instead; it must have the project's search attributes.
 */
export default async function globalSetup(): Promise<void> {
  const log = (line: string) => process.stderr.write(`[test setup] ${line}\n`);
  // Which Node runs the suite: the project brings Node 24 (the `node` devDependency), whatever the system's is.
  log(`Node ${process.version} at ${process.execPath}`);
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
