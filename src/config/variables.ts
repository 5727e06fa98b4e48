import type { z } from 'zod';
import { agentToolsSchema } from './agent-tools';
import { approvalPolicySchema } from './approval-policy';
import { mcpSchema } from './mcp';
import { apiSchema } from './api';
import { codecServerSchema } from './codec-server';
import { localRunSchema, localServerSchema } from './local-server';
import { logLevelSchema } from './log-level';
import { modelSchema } from './model';
import { modelEndpointsVariables } from './model-endpoints';
import { modelStreamFollowerSchema, modelStreamSchema } from './model-stream';
import { heartbeatSchema } from './heartbeat';
import { payloadCodecSchema } from './payload-codec';
import { clientSchema, temporalSchema } from './temporal';
import { temporalCliSchema } from './temporal-cli';
import { metricsSchema, tracingSchema } from './tracing';
import { workerDeploymentSchema } from './worker-deployment';

/**
 * Every environment variable the package reads, derived from the processes' schemas; the configuration reference is
 * checked against it.
 */

/** The kinds of process that read the environment. */
export const PROCESS_KINDS = {
  worker: '`npm run worker`',
  plugin: 'any worker with `AgentRunnerPlugin` (`createAgentWorker`, `npm run worker`, `npm start`, the demo)',
  api: '`npm run api`',
  start: '`npm start`',
  demo: '`npm run demo`',
  server: '`npm run server` and `npm run temporal:install`',
  cli: 'the `agent-runner` command',
  'codec-server': '`agent-runner codec-server`',
  client: '`AgentClient`, `startAgentRun` and `chatTurn` when their caller names no task queue',
  follower: '`followRunEvents(..., { deltas: true })` when its caller passes no `streamTrust`',
} as const;

type ProcessKind = keyof typeof PROCESS_KINDS;

/** One group of variables: the schema a process parses them with, and the processes that do. */
interface ConfigurationGroup {
  schema: z.ZodObject;
  processes: readonly ProcessKind[];
}

/** Each schema, with the processes that parse it; one place to add a group. */
export const CONFIGURATION_GROUPS: readonly ConfigurationGroup[] = [
  { schema: temporalSchema, processes: ['worker', 'api', 'cli'] },
  // The one-machine processes read the profile and TLS settings only for a server named by a variable.
  {
    schema: temporalSchema.omit({ TEMPORAL_ADDRESS: true, TEMPORAL_NAMESPACE: true, AGENT_TASK_QUEUE: true }),
    processes: ['start', 'demo', 'server'],
  },
  { schema: clientSchema, processes: ['client'] },
  { schema: localServerSchema, processes: ['start', 'demo', 'server'] },
  { schema: localRunSchema, processes: ['start', 'demo'] },
  { schema: modelSchema, processes: ['worker', 'start', 'demo'] },
  { schema: modelEndpointsVariables, processes: ['worker', 'start', 'demo'] },
  { schema: logLevelSchema, processes: ['worker', 'api', 'start'] },
  { schema: apiSchema, processes: ['api', 'start'] },
  { schema: agentToolsSchema, processes: ['api', 'start', 'cli'] },
  { schema: modelStreamSchema, processes: ['plugin'] },
  { schema: heartbeatSchema, processes: ['plugin'] },
  { schema: approvalPolicySchema, processes: ['plugin'] },
  { schema: modelStreamFollowerSchema, processes: ['api', 'start', 'cli', 'follower'] },
  { schema: payloadCodecSchema, processes: ['worker', 'api', 'cli', 'start', 'demo', 'codec-server'] },
  { schema: codecServerSchema, processes: ['codec-server'] },
  { schema: temporalCliSchema, processes: ['start', 'demo', 'server'] },
  { schema: tracingSchema, processes: ['plugin', 'api', 'start', 'cli'] },
  { schema: metricsSchema, processes: ['worker'] },
  { schema: mcpSchema, processes: ['worker', 'start'] },
  { schema: workerDeploymentSchema, processes: ['worker'] },
];

/** One environment variable, as the configuration reference shows it. */
export interface EnvironmentVariable {
  name: string;
  processes: ProcessKind[];
  /** What an unset variable means, as text; undefined when unset means "none". */
  default?: string;
  meaning: string;
}

/** Every variable of {@link CONFIGURATION_GROUPS}, merged by name, in order of first appearance. */
export function environmentVariables(
  groups: readonly ConfigurationGroup[] = CONFIGURATION_GROUPS,
): EnvironmentVariable[] {
  const readings = new Map<
    string,
    { processes: readonly ProcessKind[]; default: string | undefined; meaning: string }[]
  >();
  for (const group of groups) {
    for (const [name, field] of Object.entries(group.schema.shape as Record<string, z.ZodType>)) {
      if (field.description === undefined)
        throw new Error(`${name} has no description: give its schema field .describe('what it means').`);
      readings.set(name, [
        ...(readings.get(name) ?? []),
        { processes: group.processes, default: defaultOf(field), meaning: field.description },
      ]);
    }
  }
  return [...readings].map(([name, reads]) => {
    const processes = [...new Set(reads.flatMap((read) => read.processes))];
    const defaults = new Set(reads.map((read) => read.default));
    const shownDefault =
      defaults.size === 1
        ? reads[0]!.default
        : reads.map((read) => `${read.default ?? 'none'} (${read.processes.join(', ')})`).join('; ');
    const meaning = [...new Set(reads.map((read) => read.meaning))].join(' ');
    return { name, processes, ...(shownDefault === undefined ? {} : { default: shownDefault }), meaning };
  });
}

/** The value an unset variable parses to, as text. */
function defaultOf(field: z.ZodType): string | undefined {
  const parsed = field.safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return undefined;
  return Array.isArray(parsed.data) ? parsed.data.join(',') : String(parsed.data);
}
