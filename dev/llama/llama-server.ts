import { spawn } from 'node:child_process';
import readline from 'node:readline';
import type { LlamaInstall } from './llama-cpp';
import { stopChild } from '../../src/os/stop-child';

/** How a llama.cpp server is started: its context window, its cap on generated tokens, its sampling. */
export interface LlamaServerOptions {
  /** The context window, in tokens. @default 2048 */
  ctxSize?: number;
  /** The server's own cap on generated tokens per request (`--n-predict`); -1 for none. @default -1 */
  nPredict?: number;
  /** The sampling temperature; 0 makes every answer the same for the same request. @default 0 */
  temperature?: number;
  /** CPU threads. @default 1: on a shared two-core machine, more threads mostly wait for each other. */
  threads?: number;
  /** The model name the server reports. @default 'smollm2-135m' */
  alias?: string;
  /** How long loading the model may take. @default 60 s */
  startTimeoutMs?: number;
}

/** A llama.cpp server on 127.0.0.1. */
export interface RunningLlamaServer {
  /** The OpenAI-compatible base URL, for OPENAI_BASE_URL: `http://127.0.0.1:<port>/v1`. */
  baseURL: string;
  /** The server's root, for llama.cpp's own routes (`/health`, `/props`). */
  url: string;
  /** The model name it reports. */
  model: string;
  /** What it printed, for a failure message. */
  output(): string;
  stop(): Promise<void>;
  /** Its process id, for a test that kills it as a crash would. */
  pid: number | undefined;
}

/**
 * Starts llama.cpp's server (`serve.py` in `install`'s environment) with SmolLM2 and the tool-offering chat
 * template, on a port the server picks, and waits until `/health` answers 200 (the model is loaded). Throws, with
 * the server's last output, when it exits or does not come up in time.
 */
export async function startLlamaServer(
  install: LlamaInstall,
  options: LlamaServerOptions = {},
): Promise<RunningLlamaServer> {
  const alias = options.alias ?? 'smollm2-135m';
  const args = [
    install.serveScript,
    '--model',
    install.model,
    '--port',
    '0',
    '--ctx-size',
    String(options.ctxSize ?? 2048),
    '--n-predict',
    String(options.nPredict ?? -1),
    '--temp',
    String(options.temperature ?? 0),
    '--threads',
    String(options.threads ?? 1),
    '--alias',
    alias,
    '--chat-template-file',
    install.chatTemplate,
    // A prefix reused from the last request is evaluated in other batches than a whole prompt, which can change a
    // temperature-0 answer: every request is evaluated from scratch, so each gets the same answer in any order.
    ...((options.temperature ?? 0) === 0 ? ['--no-cache-prompt'] : []),
  ];
  // stdin stays open: serve.py stops when it closes, so a test process that dies takes the server with it.
  const child = spawn(install.python, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const output: string[] = [];
  const keep = (line: string) => {
    output.push(line);
    if (output.length > 200) output.shift();
  };
  readline.createInterface({ input: child.stderr }).on('line', keep);
  const listening = new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      keep(line);
      const match = /^listening (http:\/\/\S+)/.exec(line);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once('exit', (code, signal) => reject(new Error(`the llama.cpp server exited (${code ?? signal})`)));
    child.once('error', reject);
  });
  const tail = () => output.slice(-30).join('\n');
  const stop = () => stopChild(child);
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  try {
    const url = await Promise.race([
      listening,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the llama.cpp server did not listen within ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]);
    await waitForHealth(url, timeoutMs);
    return { baseURL: `${url}/v1`, url, model: alias, output: tail, stop, pid: child.pid };
  } catch (error) {
    await stop();
    throw new Error(
      `Could not start llama.cpp's server (${install.python} ${install.serveScript}): ` +
        `${error instanceof Error ? error.message : String(error)}\n${tail()}`,
    );
  } finally {
    clearTimeout(timer);
  }
}

async function waitForHealth(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(`${url}/health`);
      if (response.ok) return;
    } catch {
      // not answering yet
    }
    if (Date.now() > deadline) throw new Error(`${url}/health did not answer 200 within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
