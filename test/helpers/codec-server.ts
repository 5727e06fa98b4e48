import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';

/**
 * A codec server as Temporal documents them, around a real codec: `POST /encode` and `/decode` take
 * `{ payloads: [{ metadata: { key: base64 }, data: base64 }] }` and answer the same shape. Requests without the
 * expected `Authorization` get 401. `delayMs` holds every answer back (for timeouts); `answer` replaces the body.
 */
export class CodecServer {
  /** The requests received, with their headers: what the remote codec sent. */
  readonly requests: { path: string; authorization?: string; namespace?: string }[] = [];
  delayMs = 0;
  answer: string | undefined;

  private readonly server: Server;
  private port = 0;

  /** The base URL remote codecs are given. */
  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  static async start(codec: PayloadCodec, authorization: string): Promise<CodecServer> {
    const started = new CodecServer(codec, authorization);
    await new Promise<void>((resolve) => started.server.listen(0, '127.0.0.1', resolve));
    started.port = (started.server.address() as AddressInfo).port;
    return started;
  }

  private constructor(codec: PayloadCodec, authorization: string) {
    this.server = createServer((request, response) => {
      void (async () => {
        const body = await readBody(request);
        const path = request.url ?? '';
        this.requests.push({
          path,
          ...(request.headers.authorization === undefined ? {} : { authorization: request.headers.authorization }),
          ...(typeof request.headers['x-namespace'] === 'string' ? { namespace: request.headers['x-namespace'] } : {}),
        });
        if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
        if (request.method !== 'POST' || (path !== '/encode' && path !== '/decode')) {
          response.writeHead(404).end('not found');
          return;
        }
        if (request.headers.authorization !== authorization) {
          response.writeHead(401).end('unauthorized');
          return;
        }
        if (this.answer !== undefined) {
          response.writeHead(200, { 'content-type': 'application/json' }).end(this.answer);
          return;
        }
        try {
          const payloads = (JSON.parse(body) as { payloads: JsonPayload[] }).payloads.map(fromJson);
          const result = path === '/encode' ? await codec.encode(payloads) : await codec.decode(payloads);
          response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ payloads: result.map(toJson) }));
        } catch (error) {
          response.writeHead(400).end(error instanceof Error ? error.message : String(error));
        }
      })();
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });
}

function fromJson(payload: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, new Uint8Array(Buffer.from(value, 'base64'))]),
    ),
    data: new Uint8Array(Buffer.from(payload.data ?? '', 'base64')),
  };
}

function toJson(payload: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value ?? []).toString('base64')]),
    ),
    data: Buffer.from(payload.data ?? []).toString('base64'),
  };
}
