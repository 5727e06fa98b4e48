import { z } from 'zod';
import { parseEnvironment } from './environment';
import { commaSeparatedNames } from './name-list';

/** The operator's approval policy on a worker: what a run's input cannot lower. */
export const approvalPolicySchema = z.object({
  AGENT_APPROVAL_REQUIRED_TOOLS: commaSeparatedNames
    .optional()
    .describe(
      "Comma-separated tools whose every call waits for approval whatever the run's input says (`<server>__*` for all of an MCP server's tools); enforced by the worker that loads the run's tool catalog, so runs started straight through Temporal are covered too. A run's own `approval` adds to it.",
    ),
});

/** `AGENT_APPROVAL_REQUIRED_TOOLS` as a list of names; none when unset. */
export function approvalRequiredTools(env: NodeJS.ProcessEnv = process.env): string[] {
  return [...new Set(parseEnvironment(approvalPolicySchema, env).AGENT_APPROVAL_REQUIRED_TOOLS ?? [])];
}
