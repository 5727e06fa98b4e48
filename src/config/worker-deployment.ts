import { z } from 'zod';
import { RUN_VERSIONINGS, VERSIONING_DEFAULTS, type AgentWorkerDeployment } from '../shared/versioning';
import { parseEnvironment } from './environment';
import { ConfigError } from './config-error';

/** Worker Versioning: the worker deployment and build a worker joins (`docs/operations/deploys.md`). */
export const workerDeploymentSchema = z.object({
  AGENT_DEPLOYMENT_NAME: z
    .string()
    .min(1)
    .optional()
    .describe(
      'The worker deployment (Worker Versioning) of every build of the fleet, set with AGENT_BUILD_ID; both unset: unversioned.',
    ),
  AGENT_BUILD_ID: z
    .string()
    .min(1)
    .optional()
    .describe(
      "This worker's build (a git sha, a tag), new for each deploy of changed code, set with AGENT_DEPLOYMENT_NAME.",
    ),
  AGENT_VERSIONING_DEFAULT: z
    .enum(RUN_VERSIONINGS, { message: 'expected pinned or auto-upgrade' })
    .default(VERSIONING_DEFAULTS.defaultVersioning)
    .describe(
      'How runs without their own `versioning` move between builds: `auto-upgrade` (to the current build) or `pinned` (stay on their first).',
    ),
});

/** The worker's deployment, or undefined for an unversioned worker (neither variable set). */
export function loadWorkerDeployment(env: NodeJS.ProcessEnv = process.env): AgentWorkerDeployment | undefined {
  const parsed = parseEnvironment(workerDeploymentSchema, env);
  const { AGENT_DEPLOYMENT_NAME: deploymentName, AGENT_BUILD_ID: buildId } = parsed;
  if (deploymentName === undefined && buildId === undefined) return undefined;
  if (deploymentName === undefined || buildId === undefined) {
    throw new ConfigError(
      `Bad configuration: AGENT_DEPLOYMENT_NAME and AGENT_BUILD_ID go together (only ${deploymentName === undefined ? 'AGENT_BUILD_ID' : 'AGENT_DEPLOYMENT_NAME'} is set); set both for a versioned worker, neither for an unversioned one.`,
    );
  }
  return { deploymentName, buildId, defaultVersioning: parsed.AGENT_VERSIONING_DEFAULT };
}
