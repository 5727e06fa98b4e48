import net from 'node:net';

/** An answer read off a raw socket: status line, headers (lower-case names) and the body as text. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `request` byte for byte over a fresh TCP connection and reads the
 * answer until the server closes it: for requests `fetch` refuses to send
 * (a raw space in the path, a NUL in a header, a bad Content-Length).
 */
export function rawRequest(url: string, request: string, timeoutMs = 5_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms; read so far: ${Buffer.concat(chunks).toString('latin1')}`));
    }, timeoutMs);
    socket.on('connect', () => socket.write(Buffer.from(request, 'latin1')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parseAnswer(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

function parseAnswer(text: string): RawAnswer {
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`not an HTTP answer: ${JSON.stringify(text)}`);
  const [statusLine = '', ...headerLines] = text.slice(0, split).split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers, body: text.slice(split + 4) };
}
