import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApiServer, type ApiAuth, type AgentDefaults } from '../../src/api/server';
import type { TestEnv } from './test-env';

export const TEST_TOKEN = 'test-token-0123456789abcdef';

/** An answer's JSON, picked apart by assertions; typing every shape would only restate the expectations. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** A JSON answer of the API. */
export interface ApiAnswer<T = Record<string, Json>> {
  status: number;
  headers: Headers;
  body: T;
}

/** The HTTP API on the test's worker and task queue, listening on a free port of 127.0.0.1. */
export class TestApi {
  private constructor(
    private readonly app: FastifyInstance,
    readonly url: string,
  ) {}

  static async start(
    env: TestEnv,
    options: {
      auth?: ApiAuth;
      defaults?: Partial<AgentDefaults>;
      bodyLimit?: number;
      client?: Client;
      uiApprovalSecret?: string;
    } = {},
  ): Promise<TestApi> {
    const app = buildApiServer({
      client: options.client ?? env.client,
      taskQueue: env.taskQueue,
      auth: options.auth ?? { token: TEST_TOKEN },
      defaults: { tools: ['calculator'], ...options.defaults },
      ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
      ...(options.uiApprovalSecret === undefined ? {} : { uiApprovalSecret: options.uiApprovalSecret }),
      keepAliveMs: 1_000,
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (typeof address !== 'object' || address === null) throw new Error('the API did not listen on a TCP port');
    return new TestApi(app, `http://127.0.0.1:${address.port}`);
  }

  /** Sends a request over real HTTP, with the test token unless `headers` say otherwise; parses the JSON answer. */
  async request<T = Record<string, Json>>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiAnswer<T>> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TEST_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON; the test sees the text
    }
    return { status: response.status, headers: response.headers, body: parsed as T };
  }

  post<T = Record<string, Json>>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body, headers);
  }

  get<T = Record<string, Json>>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, undefined, headers);
  }

  async close(): Promise<void> {
    await this.app.close();
  }
}

/** One Server-Sent Event. */
export interface SseEvent {
  id?: string;
  event: string;
  data: Json;
}

/** Reads an event stream to its end (or `until` holds), parsing each event's JSON data. */
export async function readEventStream(
  url: string,
  headers: Record<string, string>,
  until?: (event: SseEvent) => boolean,
): Promise<{ status: number; contentType: string | null; events: SseEvent[] }> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const events: SseEvent[] = [];
  if (response.body === null)
    return { status: response.status, contentType: response.headers.get('content-type'), events };
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let boundary: number;
      while ((boundary = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        const event = parseBlock(block);
        if (event === undefined) continue;
        events.push(event);
        if (until?.(event)) {
          controller.abort();
          return { status: response.status, contentType: response.headers.get('content-type'), events };
        }
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
  return { status: response.status, contentType: response.headers.get('content-type'), events };
}

/** One Server-Sent Events block as an event; undefined for a comment or a block without data. */
export function parseBlock(block: string): SseEvent | undefined {
  const fields: Record<string, string> = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':') || line === '') continue;
    const colon = line.indexOf(':');
    const name = line.slice(0, colon);
    fields[name] = (fields[name] === undefined ? '' : `${fields[name]}\n`) + line.slice(colon + 1).replace(/^ /, '');
  }
  if (fields.data === undefined) return undefined;
  return {
    ...(fields.id === undefined ? {} : { id: fields.id }),
    event: fields.event ?? 'message',
    data: JSON.parse(fields.data),
  };
}
