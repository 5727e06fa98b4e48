import { z } from 'zod';
import { CONTEXT_RELEASE_TOOL, RESULT_CACHE_DEFAULTS } from '../shared/defaults/context-control';
import { parseEnvironment } from './environment';
import { ConfigError } from './config-error';
import { commaSeparatedNames } from './name-list';

/** Tools the workflow answers itself, without an activity, and why an approval cannot hold their calls. */
const WORKFLOW_ANSWERED_TOOLS: Readonly<Record<string, string>> = {
  [CONTEXT_RELEASE_TOOL]:
    'the workflow answers it itself while masking is on (it only lets masking hide earlier tool results, and runs nothing on a worker), so no worker sees its calls to hold them',
  [RESULT_CACHE_DEFAULTS.toolName]:
    "the workflow answers it itself from the run's own result cache (a read of results the run already has, run on no worker), so no worker sees its calls to hold them",
};

/** The operator's approval policy on a worker: what a run's input cannot lower. */
export const approvalPolicySchema = z.object({
  AGENT_APPROVAL_REQUIRED_TOOLS: commaSeparatedNames
    .optional()
    .describe(
      "Comma-separated tools whose every call waits for approval whatever the run's input says (`<server>__*` for all of an MCP server's tools); enforced by the worker that loads the run's tool catalog, so runs started straight through Temporal are covered too. A run's own `approval` adds to it. Tools the workflow answers itself (`context_release`, `result_cache`) are refused.",
    ),
});

/** `AGENT_APPROVAL_REQUIRED_TOOLS` as a list of names; none when unset. */
export function approvalRequiredTools(env: NodeJS.ProcessEnv = process.env): string[] {
  const names = [...new Set(parseEnvironment(approvalPolicySchema, env).AGENT_APPROVAL_REQUIRED_TOOLS ?? [])];
  return checkedApprovalRequired(names, 'AGENT_APPROVAL_REQUIRED_TOOLS');
}

/**
 * The operator's list of tools that always need approval, refused when it names a tool the workflow answers itself:
 * a policy that could not hold any call must not look as if it did. `source` names where the list came from.
 */
export function checkedApprovalRequired<Names extends readonly string[]>(names: Names, source: string): Names {
  const problems = names.flatMap((name) => {
    const why = Object.hasOwn(WORKFLOW_ANSWERED_TOOLS, name) ? WORKFLOW_ANSWERED_TOOLS[name] : undefined;
    return why === undefined ? [] : [`${source} names "${name}": ${why}. Remove it from the list.`];
  });
  if (problems.length > 0) throw new ConfigError(`Bad configuration: ${problems.join(' ')}`);
  return names;
}
