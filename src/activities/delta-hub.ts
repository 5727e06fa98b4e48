import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { createSecureContext } from 'node:tls';
import { loadModelStreamConfig, type PemPair } from '../config/model-stream';
import { MODEL_STREAM_DEFAULTS } from '../shared/defaults/model-stream';
import type { ChannelLine, ModelDelta } from '../shared/model-stream-events';
import { modelStreamPath, type ModelStreamCall } from '../shared/model-stream-path';

/**
 * The worker's HTTP(S) side channel for model-call deltas, one channel per attempt, forgotten
 * `MODEL_STREAM_DEFAULTS.keepEndedMs` after it. A follower sends the run's stream key (or the attempt's heartbeat
 * token) as a bearer token and reads newline-delimited JSON; no credential answers 401, a wrong one or an unknown
 * channel 404, so channels cannot be probed.
 */

/** Where one attempt publishes. */
export interface DeltaChannel {
  /** What a follower GETs. */
  readonly url: string;
  /** The credential a follower presents, `Authorization: Bearer <token>`: never logged, never shown to API callers. */
  readonly token: string;
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
  /** Serve https with this certificate and key; plain http without. */
  tls?: PemPair;
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
  /**
   * The base URL followers reach it at, when not `http(s)://host:port` (a proxy, another name). Bound to a wildcard
   * (`0.0.0.0`, `::`) without one, it is `http(s)://<the machine's host name>:port`.
   * @default `AGENT_STREAM_PUBLIC_URL`
   */
  publicUrl?: string;
  /**
   * Serve https with this PEM certificate (chain first to last) and private key, the contents, not paths:
   * `{ cert: readFileSync('stream.crt'), key: readFileSync('stream.key') }`. Followers check it against Node's
   * certificate authorities plus `AGENT_STREAM_TLS_CA`. A pair that does not match is refused here.
   * @default the files named by `AGENT_STREAM_TLS_CERT` and `AGENT_STREAM_TLS_KEY`, else none (plain http)
   */
  tls?: PemPair;
}

/**
 * The listener's settings: `options` first, then the environment as `src/config/model-stream.ts` checks it
 * (`AGENT_STREAM_HOST`, `AGENT_STREAM_PORT`, `AGENT_STREAM_PUBLIC_URL`, `AGENT_STREAM_TLS_CERT` and
 * `AGENT_STREAM_TLS_KEY`), then the defaults. A port given as an option that is not a whole number from 0 to 65535
 * is refused, and so is a certificate that does not go with its key.
 */
export function streamListenerSettings(
  options: StreamListenerOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): DeltaHubOptions {
  // A certificate given as an option wins: the files of the environment are then not read at all.
  const fromEnvironment = loadModelStreamConfig(
    options.tls === undefined ? env : { ...env, AGENT_STREAM_TLS_CERT: '', AGENT_STREAM_TLS_KEY: '' },
  );
  const host = options.host ?? fromEnvironment.host;
  const port = options.port ?? fromEnvironment.port;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new TypeError(
      `The stream listener's port must be a whole number from 0 to 65535 (0: a free one), not ${port}.`,
    );
  }
  const publicUrl = options.publicUrl ?? fromEnvironment.publicUrl;
  const tls = options.tls ?? fromEnvironment.tls;
  if (tls !== undefined) refuseBadPair(tls);
  return {
    host,
    port,
    ...(publicUrl === undefined ? {} : { publicUrl: publicUrl.replace(/\/+$/, '') }),
    ...(tls === undefined ? {} : { tls }),
  };
}

/**
 * The host of the URL the hub gives out when no public URL is set: the bound address, except that a wildcard
 * (`0.0.0.0`, `::`), which no follower can connect to from another machine, becomes the machine's host name. Each
 * container of a compose service, or pod, then announces itself under its own name, with no URL set per replica.
 */
function advertisedHost(bound: string): string {
  if (bound === '0.0.0.0' || bound === '::' || bound === '[::]') return hostname();
  return bound.includes(':') ? `[${bound}]` : bound;
}

/** Throws, naming the problem (never the key), when `pair` cannot serve https. */
function refuseBadPair(pair: PemPair): void {
  try {
    createSecureContext({ cert: pair.cert, key: pair.key });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TypeError(`The stream listener's TLS certificate and key cannot serve https: ${reason}.`);
  }
}

/** The worker's delta server; see the file comment. */
export class DeltaHub {
  private static readonly byAddress = new Map<string, DeltaHub>();
  private readonly channels = new Map<string, Channel>();
  private server: Server | undefined;
  private starting: Promise<string> | undefined;
  private url: string | undefined;

  constructor(private readonly options: DeltaHubOptions) {}

  /**
   * The process's hub for `options` (see {@link streamListenerSettings}): one per address in a worker process,
   * shared by every worker and model call in it that streams there.
   */
  static forProcess(options: StreamListenerOptions = {}): DeltaHub {
    const settings = streamListenerSettings(options);
    const certificate =
      settings.tls === undefined ? null : createHash('sha256').update(settings.tls.cert).digest('hex');
    const key = JSON.stringify([settings.host, settings.port, settings.publicUrl ?? null, certificate]);
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

  /** Whether it serves plain http on an address other machines may reach (the worker warns of it at start). */
  get plainBeyondLoopback(): boolean {
    return this.options.tls === undefined && !/^(127\.|::1$|localhost$)/i.test(this.options.host);
  }

  /**
   * The base URL followers use, when it is known without waiting: once the server listens, or when its port is
   * fixed. A worker puts it in its identity (see `shared/worker-identity.ts`) so followers find its streams.
   */
  get knownUrl(): string | undefined {
    if (this.url !== undefined) return this.url;
    if (this.options.port === 0) return undefined;
    return this.options.publicUrl ?? baseUrlOf(this.options, this.options.port);
  }

  /** Opens a channel for one attempt (starting the server on first use), with a fresh credential. */
  async open(): Promise<DeltaChannel> {
    const base = await this.listen();
    return this.register(`${base}/model-streams/`, randomUUID(), newToken());
  }

  /**
   * Opens the channel of one attempt of a run's model call at the path followers derive from the run's description
   * (`modelStreamPath`), with the run's stream key as its credential: nothing needs announcing.
   */
  async openCall(call: ModelStreamCall, key: string): Promise<DeltaChannel> {
    const base = await this.listen();
    return this.register(`${base}/model-streams/`, modelStreamPath(call), key);
  }

  private register(prefix: string, id: string, token: string): DeltaChannel {
    const channel = new Channel(`${prefix}${id}`, token, () => {
      setTimeout(() => {
        if (this.channels.get(id) === channel) this.channels.delete(id);
      }, MODEL_STREAM_DEFAULTS.keepEndedMs).unref();
    });
    this.channels.set(id, channel);
    return channel;
  }

  /** Stops the server; open followers are disconnected. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.starting = undefined;
    this.url = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private listen(): Promise<string> {
    this.starting ??= new Promise<string>((resolve, reject) => {
      const serve = (request: IncomingMessage, response: ServerResponse) => this.serve(request, response);
      const server = this.options.tls === undefined ? createServer(serve) : createTlsServer(this.options.tls, serve);
      // The hub must never keep a worker (or a test) alive on its own.
      server.unref();
      server.once('error', (error) => {
        this.starting = undefined;
        reject(error);
      });
      server.listen(this.options.port, this.options.host, () => {
        this.server = server;
        const { port } = server.address() as AddressInfo;
        this.url = this.options.publicUrl ?? baseUrlOf(this.options, port);
        resolve(this.url);
      });
    });
    return this.starting;
  }

  /**
   * One request: a GET of a channel's path with that channel's credential follows it. Without a bearer credential
   * the answer is 401, whether the channel exists or not; with a wrong one, or for a channel that does not exist,
   * 404, the same answer. The credential is compared in constant time (as digests, so its length does not show).
   */
  private serve(request: IncomingMessage, response: ServerResponse): void {
    const id = /^\/model-streams\/([0-9a-f-]{36}|calls\/[^/]+\/[^/]+\/\d+)$/.exec(request.url ?? '')?.[1];
    if (request.method !== 'GET' || id === undefined) return notFound(response);
    const presented = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '')?.[1];
    if (presented === undefined) {
      response
        .writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' })
        .end('a model stream needs its credential: Authorization: Bearer <token>\n');
      return;
    }
    const channel = this.channels.get(id);
    // Compared against a token no channel has when there is no such channel, so both cases take the same time.
    const matches = sameToken(presented, channel?.token ?? UNUSED_TOKEN);
    if (channel === undefined || !matches) return notFound(response);
    channel.follow(response);
  }
}

/** `http(s)://host:port` of a hub bound as `options` say. */
function baseUrlOf(options: DeltaHubOptions, port: number): string {
  return `${options.tls === undefined ? 'http' : 'https'}://${advertisedHost(options.host)}:${port}`;
}

/** 256 random bits, base64url: a channel's credential. */
function newToken(): string {
  return randomBytes(32).toString('base64url');
}

const UNUSED_TOKEN = newToken();

function sameToken(presented: string, expected: string): boolean {
  const digest = (token: string) => createHash('sha256').update(token).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

function notFound(response: ServerResponse): void {
  response.writeHead(404, { 'content-type': 'text/plain' }).end('no such model stream\n');
}

class Channel implements DeltaChannel {
  private readonly lines: string[] = [];
  private readonly followers = new Set<ServerResponse>();
  private ended = false;

  constructor(
    readonly url: string,
    readonly token: string,
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
