import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { build } from 'esbuild';

/**
 * The example's server: the page, its bundle (React, `@ai-sdk/react`, built by esbuild when the server starts:
 * nothing from a CDN), and `/ui/chat` passed on to agent-runner's HTTP API with the API token added, so the token
 * stays on the server and the browser talks to one origin.
 */

/** Where the API is, and where this server listens. */
export interface ChatExampleOptions {
  apiUrl: string;
  apiToken: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
}

/** Builds the page's bundle and serves it; answers the server's address and how to stop it. */
export async function startChatExample(options: ChatExampleOptions): Promise<{ url: string; close: () => Promise<void> }> {
  const bundle = await build({
    entryPoints: [path.join(__dirname, 'app.jsx')],
    bundle: true,
    write: false,
    format: 'esm',
    jsx: 'automatic',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]?.contents ?? new Uint8Array();
  const page = readFileSync(path.join(__dirname, 'index.html'));
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === '/ui/chat' || url.pathname.startsWith('/ui/chat/')) {
      forward(options, request, response, url).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
        response.end(`The API could not be reached: ${(error as Error).message}`);
      });
    } else if (url.pathname === '/app.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
    } else if (url.pathname === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { address, port } = server.address() as AddressInfo;
  return { url: `http://${address}:${port}`, close: () => closeServer(server) };
}

/** Passes a chat request on to the API with the token, and its answer (a stream) back as it comes. */
async function forward(
  options: ChatExampleOptions,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const aborted = new AbortController();
  response.on('close', () => aborted.abort());
  const answer = await fetch(`${options.apiUrl}${url.pathname}`, {
    method: request.method ?? 'GET',
    headers: {
      authorization: `Bearer ${options.apiToken}`,
      ...(request.headers['content-type'] === undefined ? {} : { 'content-type': request.headers['content-type'] }),
    },
    ...(request.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
    signal: aborted.signal,
  });
  const headers: Record<string, string> = {};
  for (const name of ['content-type', 'cache-control', 'x-vercel-ai-ui-message-stream']) {
    const value = answer.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  response.writeHead(answer.status, headers);
  if (answer.body === null) {
    response.end();
    return;
  }
  Readable.fromWeb(answer.body as WebReadableStream).on('error', () => response.end()).pipe(response);
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

if (require.main === module) {
  const apiToken = process.env.AGENT_API_TOKEN;
  if (apiToken === undefined || apiToken === '') {
    console.error('Set AGENT_API_TOKEN to the API token (the one `npm start` was given).');
    process.exit(1);
  }
  startChatExample({
    apiUrl: process.env.AGENT_API_URL ?? 'http://127.0.0.1:3000',
    apiToken,
    port: Number(process.env.PORT ?? 5173),
  }).then(
    ({ url }) => console.log(`The chat is at ${url}/`),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
