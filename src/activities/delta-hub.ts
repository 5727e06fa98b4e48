import { randomUUID } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadModelStreamConfig } from '../config/model-stream';
import { MODEL_STREAM_DEFAULTS } from '../shared/defaults/model-stream';
import type { ChannelLine, ModelDelta } from '../shared/model-stream-events';

/**
 * The worker's side channel for model-call deltas: a small HTTP server, in
 * the worker's own process, started on first use. Each attempt of a model
 * call opens a channel under an unguessable URL (which the activity
 * heartbeats, so only someone who can describe the run learns it); a
 * follower GETs it and reads newline-delimited JSON: every delta from the
 * attempt's first, then each as it comes, then `{"end": "completed" |
 * "failed"}`. Nothing here is durable: a lost worker loses its channels, and
 * followers are told to discard what they were shown.
 */

/** Where one attempt publishes. */
export interface DeltaChannel {
  /** What a follower GETs. */
  readonly url: string;
  publish(delta: ModelDelta): void;
  /** Ends the channel: followers get the end line and are disconnected; it stays readable a while for late ones. */
  end(outcome: 'completed' | 'failed'): void;
}

/** Where the hub listens and what URL it gives out. */
export interface DeltaHubOptions {
  host: string;
  port: number;
  /** The base URL followers use, when it differs from the bound address (a container, a proxy). */
  publicUrl?: string;
}

/**
 * The worker's listener for streaming model deltas, as `AgentRunnerPlugin` and `createAgentWorker` take it
 * (`streamListener`). Each field left out comes from the environment, else the default.
 */
export interface StreamListenerOptions {
  /** The address it binds. @default `AGENT_STREAM_HOST`, else '127.0.0.1' (this machine only) */
  host?: string;
  /** Its port; 0 picks a free one. @default `AGENT_STREAM_PORT`, else 0 */
  port?: number;
  /** The base URL followers reach it at, when not `http://host:port` (a container, a proxy, another machine). @default `AGENT_STREAM_PUBLIC_URL` */
  publicUrl?: string;
}

/**
 * The listener's settings: `options` first, then the environment as `src/config/model-stream.ts` checks it
 * (`AGENT_STREAM_HOST`, `AGENT_STREAM_PORT`, `AGENT_STREAM_PUBLIC_URL`), then the defaults. A port given as an option
 * that is not a whole number from 0 to 65535 is refused.
 */
export function streamListenerSettings(
  options: StreamListenerOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): DeltaHubOptions {
  const fromEnvironment = loadModelStreamConfig(env);
  const host = options.host ?? fromEnvironment.host;
  const port = options.port ?? fromEnvironment.port;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new TypeError(
      `The stream listener's port must be a whole number from 0 to 65535 (0: a free one), not ${port}.`,
    );
  }
  const publicUrl = options.publicUrl ?? fromEnvironment.publicUrl;
  return { host, port, ...(publicUrl === undefined ? {} : { publicUrl: publicUrl.replace(/\/+$/, '') }) };
}

/** The worker's delta server; see the file comment. */
export class DeltaHub {
  private static readonly byAddress = new Map<string, DeltaHub>();
  private readonly channels = new Map<string, Channel>();
  private server: Server | undefined;
  private starting: Promise<string> | undefined;

  constructor(private readonly options: DeltaHubOptions) {}

  /**
   * The process's hub for `options` (see {@link streamListenerSettings}): one per address in a worker process,
   * shared by every worker and model call in it that streams there.
   */
  static forProcess(options: StreamListenerOptions = {}): DeltaHub {
    const settings = streamListenerSettings(options);
    const key = JSON.stringify([settings.host, settings.port, settings.publicUrl ?? null]);
    let hub = DeltaHub.byAddress.get(key);
    if (hub === undefined) {
      hub = new DeltaHub(settings);
      DeltaHub.byAddress.set(key, hub);
    }
    return hub;
  }

  /** Starts the server if it is not listening yet; returns the base URL followers use (what a worker logs at start). */
  start(): Promise<string> {
    return this.listen();
  }

  /** Opens a channel for one attempt (starting the server on first use). */
  async open(): Promise<DeltaChannel> {
    const base = await this.listen();
    const token = randomUUID();
    const channel = new Channel(`${base}/model-streams/${token}`, () => {
      setTimeout(() => this.channels.delete(token), MODEL_STREAM_DEFAULTS.keepEndedMs).unref();
    });
    this.channels.set(token, channel);
    return channel;
  }

  /** Stops the server; open followers are disconnected. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.starting = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private listen(): Promise<string> {
    this.starting ??= new Promise<string>((resolve, reject) => {
      const server = createServer((request, response) => {
        const token = /^\/model-streams\/([0-9a-f-]{36})$/.exec(request.url ?? '')?.[1];
        const channel = request.method === 'GET' && token !== undefined ? this.channels.get(token) : undefined;
        if (channel === undefined) {
          response.writeHead(404, { 'content-type': 'text/plain' }).end('no such model stream\n');
          return;
        }
        channel.follow(response);
      });
      // The hub must never keep a worker (or a test) alive on its own.
      server.unref();
      server.once('error', (error) => {
        this.starting = undefined;
        reject(error);
      });
      server.listen(this.options.port, this.options.host, () => {
        this.server = server;
        const { port } = server.address() as AddressInfo;
        const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
        resolve(this.options.publicUrl ?? `http://${host}:${port}`);
      });
    });
    return this.starting;
  }
}

class Channel implements DeltaChannel {
  private readonly lines: string[] = [];
  private readonly followers = new Set<ServerResponse>();
  private ended = false;

  constructor(
    readonly url: string,
    private readonly onEnd: () => void,
  ) {}

  publish(delta: ModelDelta): void {
    if (this.ended) return;
    this.write({ index: this.lines.length, delta });
  }

  end(outcome: 'completed' | 'failed'): void {
    if (this.ended) return;
    this.write({ end: outcome });
    this.ended = true;
    for (const follower of this.followers) follower.end();
    this.followers.clear();
    this.onEnd();
  }

  follow(response: ServerResponse): void {
    response.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-cache' });
    // A follower that comes late reads the attempt from its first delta: nothing is lost, order is kept.
    if (this.lines.length > 0) response.write(this.lines.join(''));
    if (this.ended) {
      response.end();
      return;
    }
    response.flushHeaders();
    this.followers.add(response);
    response.on('close', () => this.followers.delete(response));
  }

  private write(line: ChannelLine): void {
    const text = `${JSON.stringify(line)}\n`;
    this.lines.push(text);
    for (const follower of this.followers) follower.write(text);
  }
}
