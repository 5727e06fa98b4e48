/**
 * `agent-runner/testing`: what you need to test an agent of your own the way this project tests itself — through a
 * real worker, a real Temporal dev server and a scripted model that speaks the OpenAI chat-completions API over
 * HTTP, so the real `openai` client, workflows and activities all run.
 *
 * ```ts
 * const server = await startDevServer({ port: 0, uiPort: 0, log: console.log });
 * const model = await ScriptedModelServer.start();
 * model.script('my-scenario', [{ toolCalls: [{ name: 'lookup_order', arguments: { orderNumber: '42' } }] }, { content: 'Shipped.' }]);
 * // a worker with new AgentRunnerPlugin({ tools, model: { baseURL: model.baseURL, defaultModel: 'unused' } }),
 * // then a run with { model: 'my-scenario', tools: ['lookup_order'], message: '...' }
 * ```
 *
 * The scripted model is a fastify server: this entry needs `fastify`, an optional peer dependency of the package
 * (`npm install --save-dev fastify`), and says so when it is missing. `startDevServer` uses the Temporal CLI it finds (`TEMPORAL_CLI_PATH`, PATH, the
 * cache) and falls back to the SDK's own download of it, which needs `@temporalio/testing`, another optional peer.
 */

import './fastify-present';

export { ScriptedModelServer } from '../scripted-model/server';
export type {
  ChatCompletionRequest,
  Responder,
  ScriptStep,
  ScriptedError,
  ScriptedKeyEcho,
  ScriptedRawReply,
  ScriptedReply,
  ScriptedToolCall,
} from '../scripted-model/script';
export { startDevServer, type DevServerOptions, type StartedDevServer } from '../dev-server/dev-server';
export type { Log } from '../dev-server/temporal-cli';
export { replayAgentHistories, type ReplayAgentHistoriesOptions } from './replay-histories';
