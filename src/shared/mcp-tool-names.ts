/**
 * How an MCP server's tools are named to the model, the run's `tools`, approvals and events: the
 * server's name, `__`, the tool's own name (`files__read_file`). A run may name `<server>__*` for
 * every tool of a server. Pure: the workflow expands the wildcard against its catalog.
 */

/** Between a server's name and its tool's name. */
export const MCP_TOOL_SEPARATOR = '__';

/** What a run names to take every tool of a server: `<server>__*`. */
const MCP_WILDCARD = '*';

/** What every tool name must be: what providers accept. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** A server's name: letters, digits, `_` and `-`, without `__` (the separator) or a trailing `_`. */
const SERVER_NAME_PATTERN = /^[a-zA-Z0-9-]+(?:_[a-zA-Z0-9-]+)*$/;

/** The tool's name as the model sees it. */
export function mcpToolName(server: string, tool: string): string {
  return `${server}${MCP_TOOL_SEPARATOR}${tool}`;
}

/** Why `server` cannot name an MCP server, or `undefined` when it can. */
export function serverNameProblem(server: string): string | undefined {
  if (server.length > 32) return `"${server}" is longer than 32 characters`;
  if (!SERVER_NAME_PATTERN.test(server)) {
    return `"${server}" must be letters, digits, "-" and single "_" between them (no "__": it separates the server from its tools)`;
  }
  return undefined;
}

/** Why the server's tool `tool` cannot be offered to a model, or `undefined` when it can. */
export function mcpToolNameProblem(server: string, tool: string): string | undefined {
  const name = mcpToolName(server, tool);
  if (TOOL_NAME_PATTERN.test(name)) return undefined;
  return `"${name}" is not a valid tool name (1 to 64 letters, digits, "_" or "-"; providers reject others)`;
}

/** The server a `<server>__*` name takes every tool of, or `undefined` for any other name. */
export function wildcardServer(name: string): string | undefined {
  const suffix = `${MCP_TOOL_SEPARATOR}${MCP_WILDCARD}`;
  return name.endsWith(suffix) && name.length > suffix.length ? name.slice(0, -suffix.length) : undefined;
}

/** Whether `name` is a tool `pattern` stands for: the name itself, or a tool of the server `<server>__*` names. */
export function toolMatches(pattern: string, name: string): boolean {
  if (pattern === name) return true;
  const server = wildcardServer(pattern);
  return server !== undefined && name.startsWith(`${server}${MCP_TOOL_SEPARATOR}`);
}

/**
 * The names `requested` stands for among `available`, in order, each once: a plain name as it is,
 * a `<server>__*` as every available tool of that server (sorted). A wildcard that matches nothing
 * is returned in `unmatched`.
 */
export function expandToolNames(
  requested: readonly string[],
  available: readonly string[],
): { names: string[]; unmatched: string[] } {
  const names: string[] = [];
  const unmatched: string[] = [];
  const seen = new Set<string>();
  const add = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    names.push(name);
  };
  for (const name of requested) {
    if (wildcardServer(name) === undefined) {
      add(name);
      continue;
    }
    const matches = available.filter((candidate) => toolMatches(name, candidate)).sort();
    if (matches.length === 0) unmatched.push(name);
    for (const match of matches) add(match);
  }
  return { names, unmatched };
}
