import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The client entry (`agent-runner`, src/client/index.ts) loads only what a client needs: a backend service that
 * starts and follows runs does not load the worker (@temporalio/worker and its native core bridge), the HTTP API
 * (fastify), the command line (commander) or the model client (openai). Loaded in a fresh process, as a service
 * would load it.
 */
const root = path.join(__dirname, '..', '..');
const clientEntry = path.join(root, 'src', 'client', 'index.ts');

/** Packages that are not the client's, as they appear in a loaded module's path. */
const NOT_THE_CLIENTS = ['@temporalio/worker', '@temporalio/core-bridge', 'fastify', 'commander', 'openai'];

test('requiring the client entry loads none of the worker, the API, the CLI or the model client', async () => {
  const script = `
    require('tsx/cjs/api').register();
    const client = require(process.argv[1]);
    process.stdout.write(JSON.stringify({ exports: Object.keys(client), loaded: Object.keys(require.cache) }));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script, clientEntry], {
    cwd: root,
    maxBuffer: 16 << 20,
  });
  const { exports, loaded } = JSON.parse(stdout) as { exports: string[]; loaded: string[] };
  // The entry did load, with its client and the SDK's client package (the check checked something) ...
  expect(exports).toEqual(
    expect.arrayContaining(['connectAgentClient', 'runAgent', 'followRunEvents', 'registerSearchAttributes']),
  );
  expect(loaded).toContain(clientEntry);
  expect(loaded.some((module) => module.includes(`${path.sep}@temporalio${path.sep}client${path.sep}`))).toBe(true);
  // ... and nothing of the others.
  const packageOf = (module: string) =>
    NOT_THE_CLIENTS.find((name) =>
      module.includes(`${path.sep}node_modules${path.sep}${name.replace('/', path.sep)}${path.sep}`),
    );
  expect(loaded.filter((module) => packageOf(module) !== undefined)).toEqual([]);
});
