import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv, startScript, stopChild } from '../helpers/processes';
import { testServerAddress } from '../helpers/test-env';

/**
 * `npm run worker` with AGENT_METRICS_PROMETHEUS serves Temporal's SDK metrics for Prometheus. A process of its
 * own: Temporal's Runtime, which owns the metrics exporter, is installed once per process.
 */

jest.setTimeout(180_000);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

const BEYOND_LOOPBACK = /AGENT_METRICS_PROMETHEUS=\S+ serves the worker's metrics beyond this machine/;

/** `npm run worker` with its metrics served on `bindAddress`, once it polls. */
async function metricsWorker(bindAddress: string) {
  return startScript(
    'src/processes/worker.ts',
    cleanEnv({
      TEMPORAL_ADDRESS: testServerAddress(),
      AGENT_TASK_QUEUE: `metrics-${randomUUID()}`,
      OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
      AGENT_WORKSPACE: await mkdtemp(path.join(os.tmpdir(), 'metrics-workspace-')),
      AGENT_METRICS_PROMETHEUS: bindAddress,
    }),
    /Worker polling task queue/,
  );
}

test('AGENT_METRICS_PROMETHEUS: the worker serves temporal_ metrics at /metrics', async () => {
  const port = await freePort();
  const worker = await metricsWorker(`127.0.0.1:${port}`);
  try {
    // On loopback it has nothing to warn of.
    expect(worker.output()).not.toMatch(BEYOND_LOOPBACK);
    let body = '';
    const deadline = Date.now() + 30_000;
    // The worker's pollers report within a moment of starting.
    while (!/^temporal_\w+/m.test(body) && Date.now() < deadline) {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(response.status).toBe(200);
      body = await response.text();
      if (!/^temporal_\w+/m.test(body)) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(body).toMatch(/^temporal_\w+/m);
    expect(body).toMatch(/temporal_(num_pollers|worker_task_slots_available|request)/);
  } finally {
    await stopChild(worker.child, 'SIGTERM');
  }
});

test('AGENT_METRICS_PROMETHEUS on every interface: the worker warns at start that its metrics reach beyond this machine', async () => {
  const port = await freePort();
  // Bound on every interface for the length of the test; scraped through loopback alone.
  const worker = await metricsWorker(`0.0.0.0:${port}`);
  try {
    expect(worker.output()).toMatch(
      new RegExp(`AGENT_METRICS_PROMETHEUS=0\\.0\\.0\\.0:${port} serves the worker's metrics beyond this machine`),
    );
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
  } finally {
    await stopChild(worker.child, 'SIGTERM');
  }
});
