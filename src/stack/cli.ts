import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEMO_MODEL, demoAgent } from '../scripted-model/demo-agent';
import { ScriptedModelServer } from '../scripted-model/server';
import { PROJECT_ROOT, startStack, type StackModel } from './stack';

const run = promisify(execFile);

/**
 * `npm run stack`: the production shape of docker-compose.yml on this machine, in the foreground like
 * `docker compose up`; Ctrl-C stops all of it. `npm run stack -- --fresh` starts from a new database.
 */
async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  const fresh = process.argv.includes('--fresh');
  log('Building dist/ (the workers and APIs run the built code, as the image does)...');
  await run(
    process.execPath,
    [path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: PROJECT_ROOT,
    },
  );
  let scripted: ScriptedModelServer | undefined;
  let model: StackModel;
  if (process.env.OPENAI_API_KEY === undefined && process.env.OPENAI_BASE_URL === undefined) {
    scripted = (await ScriptedModelServer.start()).respond(DEMO_MODEL, demoAgent);
    model = { baseURL: scripted.baseURL, model: DEMO_MODEL };
    log(`No OPENAI_API_KEY or OPENAI_BASE_URL: the workers use the demo's scripted model at ${scripted.baseURL}.`);
  } else {
    model = {
      baseURL: process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
      model: process.env.OPENAI_MODEL ?? 'gpt-4o-mini',
      ...(process.env.OPENAI_API_KEY === undefined ? {} : { apiKey: process.env.OPENAI_API_KEY }),
    };
  }
  const abort = new AbortController();
  const stopped = new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(signal, () => {
        if (abort.signal.aborted) return;
        log(`${signal}: stopping the stack (APIs, workers, web UI, Temporal, PostgreSQL)...`);
        abort.abort(new Error(`${signal} while the stack was starting; stopped what had started.`));
        resolve();
      });
    }
  });
  const stack = await startStack({
    fresh,
    model,
    log,
    signal: abort.signal,
    ...(process.env.AGENT_API_TOKEN ? { apiToken: process.env.AGENT_API_TOKEN } : {}),
  });
  log('');
  log('The stack is up:');
  log(`  Temporal    ${stack.address} (namespace ${stack.namespace}, task queue ${stack.taskQueue})`);
  if (stack.ui !== undefined) log(`  Web UI      ${stack.ui.url}`);
  for (const api of stack.apis) log(`  API         ${api.url}`);
  log(`  API token   in ${path.join(stack.directory, 'api-token')}`);
  log(`  Logs        ${stack.directory}/*.log`);
  log('Try: agent-runner run --address ' + stack.address + ' "Summarise the workspace"');
  log('Ctrl-C stops everything.');
  await stopped;
  await stack.stop();
  await scripted?.close();
  log('Stopped.');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
