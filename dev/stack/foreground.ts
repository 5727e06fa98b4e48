import path from 'node:path';
import { startStack, type Stack, type StackOptions } from './stack';

/**
 * Runs the stack in the foreground, as `docker compose up` does: starts it, prints where each part answers, and on
 * Ctrl-C (SIGINT), SIGTERM or SIGHUP stops every part in order (the APIs, the workers, the web UI, Temporal, then
 * PostgreSQL), saying so part by part. A signal while it is still starting stops what had started. Resolves once all
 * of it has stopped.
 */
export async function runStackInForeground(options: Omit<StackOptions, 'signal'>): Promise<void> {
  const { log } = options;
  const abort = new AbortController();
  const handlers: Array<[NodeJS.Signals, () => void]> = [];
  const stopped = new Promise<void>((resolve) => {
    // SIGHUP too: closing the terminal would otherwise end this process alone, and leave the parts running.
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      const handler = () => {
        if (abort.signal.aborted) return;
        log(`${signal}: stopping the stack (APIs, workers, web UI, Temporal, PostgreSQL)...`);
        abort.abort(new Error(`${signal} while the stack was starting; stopped what had started.`));
        resolve();
      };
      process.on(signal, handler);
      handlers.push([signal, handler]);
    }
  });
  try {
    const started = Date.now();
    const stack = await startStack({ ...options, signal: abort.signal });
    log('');
    log(`The stack is up (${((Date.now() - started) / 1000).toFixed(1)} s):`);
    for (const line of stackSummary(stack)) log(line);
    await stopped;
    await stack.stop();
    log('Stopped.');
  } finally {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  }
}

/** Where each part of a running stack answers, and how to try it. */
function stackSummary(stack: Stack): string[] {
  const tokenFile = path.join(stack.directory, 'api-token');
  const lines = [
    `  Temporal    ${stack.address} (namespace ${stack.namespace}, task queue ${stack.taskQueue})`,
    ...(stack.ui === undefined ? [] : [`  Web UI      ${stack.ui.url}`]),
    ...stack.workers.map((worker) => `  ${worker.name.padEnd(11)} pid ${worker.pid()}, stream ${worker.streamUrl}`),
    ...stack.apis.map((api) => `  ${api.name.padEnd(11)} ${api.url}`),
    `  API token   in ${tokenFile}`,
    `  Logs        ${path.join(stack.directory, '*.log')}, ${stack.temporal.logFile}, ${path.join(stack.directory, 'postgres', 'postgres.log')}`,
    'Try:',
    `  TEMPORAL_ADDRESS=${stack.address} npx agent-runner run "Summarise the workspace" --terminate-on finish`,
  ];
  const api = stack.apis[0];
  if (api !== undefined) {
    lines.push(
      `  curl -H "Authorization: Bearer $(cat ${tokenFile})" "${api.url}/runs?query=AgentStatus%3D'completed'"`,
    );
  }
  lines.push('Ctrl-C stops everything.');
  return lines;
}
