import type { ModelConfig } from '../config/model';
import { OFFLINE_MODEL } from '../shared/defaults/names';
import { offlineAgent } from './offline-agent';
import { ScriptedModelServer } from './server';

/** The model a process runs on: as configured, or with `AGENT_OFFLINE=1` the scripted model it now serves. */
export interface ServedModel {
  model: ModelConfig;
  /** The start line that says every answer is scripted; undefined on a real model. */
  notice?: string;
  close(): Promise<void>;
}

/**
 * Serves the scripted offline model on a loopback port when the configuration asks for it (`AGENT_OFFLINE=1`), over
 * the same OpenAI-compatible HTTP API a provider speaks, so the real client, workflow and activities all run.
 */
export async function serveOfflineModel(model: ModelConfig): Promise<ServedModel> {
  if (model.offline === undefined) return { model, close: async () => {} };
  const server = (await ScriptedModelServer.start()).respond(OFFLINE_MODEL, offlineAgent);
  const ignored = model.offline.ignored;
  return {
    model: { ...model, baseURL: server.baseURL, defaultModel: OFFLINE_MODEL },
    notice:
      `OFFLINE (AGENT_OFFLINE=1): every answer is SCRIPTED — the bundled scripted model at ${server.baseURL}, a fixed ` +
      'policy, not an LLM (it does arithmetic, summarises the workspace, asks one question). ' +
      (ignored.length === 0 ? '' : `Ignored: ${ignored.join(', ')}. `) +
      'Unset AGENT_OFFLINE and set OPENAI_API_KEY or OPENAI_BASE_URL for a real model.',
    close: () => server.close(),
  };
}
