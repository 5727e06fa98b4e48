import path from 'node:path';
import { spawn } from 'node:child_process';
import net from 'node:net';

/** The reference MCP servers from the npm registry (devDependencies), started the way a user's config starts them. */
const modules = path.join(__dirname, '..', '..', 'node_modules', '@modelcontextprotocol');

/** `@modelcontextprotocol/server-everything` over stdio, as a stdio entry of `mcpServers`. */
export function everythingStdio(env: Record<string, string> = {}) {
  return {
    command: process.execPath,
    args: [path.join(modules, 'server-everything', 'dist', 'index.js'), 'stdio'],
    env,
  };
}

/** `@modelcontextprotocol/server-filesystem` serving `directory`. */
export function filesystemServer(directory: string) {
  return { command: process.execPath, args: [path.join(modules, 'server-filesystem', 'dist', 'index.js'), directory] };
}

/** `@modelcontextprotocol/server-memory`, its knowledge graph in `file`. */
export function memoryServer(file: string) {
  return {
    command: process.execPath,
    args: [path.join(modules, 'server-memory', 'dist', 'index.js')],
    env: { MEMORY_FILE_PATH: file },
  };
}

/** `test/fixtures/mcp/changing-server.ts` (run by tsx): `echo-meta` returns the call's `_meta`; `add-tool` adds a tool and announces it. */
export function changingServer() {
  return {
    command: path.join(__dirname, '..', '..', 'node_modules', '.bin', 'tsx'),
    args: [path.join(__dirname, '..', 'fixtures', 'mcp', 'changing-server.ts')],
  };
}

/**
 * `@modelcontextprotocol/server-everything` over Streamable HTTP on a free port of 127.0.0.1, started as its own
 * process; resolves once it listens. `url` is its MCP endpoint; `stop()` ends it.
 */
export async function everythingHttp(): Promise<{ url: string; stop: () => Promise<void>; output: () => string }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [path.join(modules, 'server-everything', 'dist', 'index.js'), 'streamableHttp'],
    {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString());
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything did not listen in 30 s:\n${output}`)), 30_000);
    const check = () => {
      if (/listening on port/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited (${code}) before it listened:\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A port no one listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
