import { resolveLlama } from '../../dev/llama/llama-cpp';
import { startLlamaServer, type LlamaServerOptions, type RunningLlamaServer } from '../../dev/llama/llama-server';

/**
 * A real llama.cpp server (llama.cpp's own C++ server, from the `xllamacpp` wheel) with SmolLM2-135M, started
 * before the file's tests on a port it picks, once `/health` answers, and stopped after them. The install is
 * `npm run llama:install` (the first use installs it: allow minutes). A server that cannot start fails the file's
 * tests with its output; nothing is skipped.
 */
export function useLlamaServer(options: LlamaServerOptions = {}): { readonly server: RunningLlamaServer } {
  let running: RunningLlamaServer | undefined;
  beforeAll(async () => {
    const install = await resolveLlama((line) => process.stderr.write(`[llama install] ${line}\n`));
    running = await startLlamaServer(install, options);
  }, 10 * 60_000);
  afterAll(async () => {
    await running?.stop();
  });
  return {
    get server() {
      if (running === undefined) throw new Error('the llama.cpp server is started in beforeAll: use it inside a test');
      return running;
    },
  };
}
