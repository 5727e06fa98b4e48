import { z } from 'zod';
import { ConfigError } from './index';
import { DEFAULT_AGENT_TOOLS } from '../shared/constants';

/**
 * What a run gets when its caller names no tools: the HTTP API's chat
 * endpoints and `agent-runner run` both start from `AGENT_TOOLS`.
 */

const toolList = z
  .string()
  .transform((value) => value.split(',').map((name) => name.trim()).filter((name) => name !== ''))
  .pipe(z.array(z.string()).min(1, 'name at least one tool'));

/** `AGENT_TOOLS` (comma-separated), else {@link DEFAULT_AGENT_TOOLS}. Names are checked by the worker, which knows its tools. */
export function defaultAgentTools(env: NodeJS.ProcessEnv = process.env): string[] {
  const raw = env.AGENT_TOOLS;
  if (raw === undefined || raw.trim() === '') return [...DEFAULT_AGENT_TOOLS];
  const parsed = toolList.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`Bad configuration: AGENT_TOOLS=${JSON.stringify(raw)}: ${parsed.error.issues[0]?.message}`);
  return [...new Set(parsed.data)];
}

/** `tools` plus any terminating tool not already in it, so `terminating.toolIds` alone is enough to name a finishing tool. */
export function withTerminatingTools(tools: readonly string[], terminatingToolIds: readonly string[] = []): string[] {
  return [...new Set([...tools, ...terminatingToolIds])];
}
