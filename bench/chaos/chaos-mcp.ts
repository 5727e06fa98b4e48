import { readFileSync } from 'node:fs';
import path from 'node:path';
import { mcpToolName } from '../../src/shared/mcp-tool-names';

/** The chaos worker's MCP server, by the name its `mcpServers` entry gives it. */
const CHAOS_MCP_SERVER = 'chaos';

/** Its one tool, as the chaos agent calls it: `chaos_step` over MCP (chaos-mcp-server.mjs). */
export const CHAOS_MCP_TOOL = mcpToolName(CHAOS_MCP_SERVER, 'step');

/**
 * The chaos worker's `mcpServers`: chaos-mcp-server.mjs over stdio, logging side effects as `chaos_step` does. Its
 * `step` works a quarter of `workMs`: on a new worker it also waits for the server to start, and a call as long as
 * the `chaos_step` beside it keeps the step no longer, so the kills land no more often in it than before.
 */
export function chaosMcpServers(options: { sideEffectLog: string; workMs: number; pidLog: string }) {
  return {
    [CHAOS_MCP_SERVER]: {
      command: process.execPath,
      args: [path.join(__dirname, 'chaos-mcp-server.mjs')],
      env: {
        CHAOS_SIDE_EFFECT_LOG: options.sideEffectLog,
        CHAOS_TOOL_WORK_MS: String(Math.round(options.workMs / 4)),
        CHAOS_MCP_PID_LOG: options.pidLog,
      },
    },
  };
}

/**
 * The chaos MCP servers still running that no live worker started: a SIGKILLed worker cannot close its
 * servers, so each must end by itself when its stdin closes. `worker` is the current worker's process id (or, on the
 * stack, every live worker's).
 */
export function orphanedMcpServers(
  pidLog: string,
  worker: number | undefined | ReadonlyArray<number | undefined>,
): number[] {
  const live = new Set(Array.isArray(worker) ? worker : [worker]);
  let text = '';
  try {
    text = readFileSync(pidLog, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map(Number)
    .filter((pid) => {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        return false; // ended
      }
      // Fields after the command's closing parenthesis: state, then the parent's process id.
      const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return state !== 'Z' && !live.has(Number(parent));
    });
}
