import { DEMO_MODEL, demoAgent } from '../../src/scripted-model/demo-agent';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { WORKER_DEFAULTS } from '../../src/shared/defaults/worker';
import { resolveTemporalBinaries } from './binaries';
import { buildDist } from './build-dist';
import { runStackInForeground } from './foreground';
import { postgresBinDirectory } from './postgres';
import type { StackModel } from './stack';
import { readStackVersions } from './versions';

/**
 * `npm run stack`: the production shape of docker-compose.yml on this machine, in the foreground like
 * `docker compose up`; Ctrl-C stops all of it. `npm run stack -- --fresh` starts from a new database. What it needs
 * is checked first (PostgreSQL, then the Temporal programs, built with Go the first time), so a missing piece is
 * named before any long build.
 */
async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  const fresh = process.argv.includes('--fresh');
  const bin = await postgresBinDirectory();
  log(`PostgreSQL programs in ${bin}.`);
  const versions = await readStackVersions();
  await resolveTemporalBinaries(versions, log);
  log('Building dist/ with tsc (the workers and APIs run the built code, as the image does)...');
  log(`Built dist/ in ${((await buildDist()) / 1000).toFixed(1)} s.`);
  let scripted: ScriptedModelServer | undefined;
  let model: StackModel;
  if (process.env.OPENAI_API_KEY === undefined && process.env.OPENAI_BASE_URL === undefined) {
    scripted = (await ScriptedModelServer.start()).respond(DEMO_MODEL, demoAgent);
    model = { baseURL: scripted.baseURL, model: DEMO_MODEL };
    log(`No OPENAI_API_KEY or OPENAI_BASE_URL: the workers use the demo's scripted model at ${scripted.baseURL}.`);
  } else {
    model = {
      baseURL: process.env.OPENAI_BASE_URL ?? WORKER_DEFAULTS.modelBaseUrl,
      model: process.env.OPENAI_MODEL ?? WORKER_DEFAULTS.model,
      ...(process.env.OPENAI_API_KEY === undefined ? {} : { apiKey: process.env.OPENAI_API_KEY }),
    };
  }
  try {
    await runStackInForeground({
      fresh,
      model,
      log,
      ...(process.env.AGENT_API_TOKEN ? { apiToken: process.env.AGENT_API_TOKEN } : {}),
    });
  } finally {
    await scripted?.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
