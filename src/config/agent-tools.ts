import { z } from 'zod';
import { DEFAULT_AGENT_TOOLS } from '../shared/defaults/tools';
import { parseEnvironment } from './environment';
import { commaSeparatedNames } from './name-list';

/**
 * What a run gets when its caller names no tools: the HTTP API's chat
 * endpoints and `agent-runner run` both start from `AGENT_TOOLS`.
 */

const toolList = commaSeparatedNames.pipe(z.array(z.string()).min(1, 'name at least one tool'));

export const agentToolsSchema = z.object({
  AGENT_TOOLS: toolList
    .default([...DEFAULT_AGENT_TOOLS])
    .describe('Comma-separated tools a run gets when its caller names none; the worker checks them.'),
});

/** `AGENT_TOOLS` (comma-separated), else {@link DEFAULT_AGENT_TOOLS}. Names are checked by the worker, which knows its tools. */
export function defaultAgentTools(env: NodeJS.ProcessEnv = process.env): string[] {
  // Blank counts as unset, as for every variable.
  const raw = env.AGENT_TOOLS;
  return [
    ...new Set(
      parseEnvironment(agentToolsSchema, raw === undefined || raw.trim() === '' ? {} : { AGENT_TOOLS: raw })
        .AGENT_TOOLS,
    ),
  ];
}

/** `tools` plus any terminating tool not already in it, so `terminating.toolIds` alone is enough to name a finishing tool. */
export function withTerminatingTools(tools: readonly string[], terminatingToolIds: readonly string[] = []): string[] {
  return [...new Set([...tools, ...terminatingToolIds])];
}
