import path from 'node:path';

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
