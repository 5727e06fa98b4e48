import { z } from 'zod';
import { RUN_VERSIONINGS, VERSIONING_DEFAULTS, type AgentWorkerDeployment } from '../shared/versioning';
import { ConfigError, parseEnvironment } from './environment';

/** Worker Versioning: the worker deployment and build a worker joins (`docs/operations/deploys.md`). */
export const workerDeploymentSchema = z.object({
  AGENT_DEPLOYMENT_NAME: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The worker deployment this worker belongs to (Temporal's Worker Versioning), with AGENT_BUILD_ID; the same for every build of the fleet. Both unset: an unversioned worker, as without Worker Versioning.",
    ),
  AGENT_BUILD_ID: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The build of the code this worker runs (a git sha, a release tag), with AGENT_DEPLOYMENT_NAME; a new one for each deploy of changed code. A build takes runs once it is made the deployment's current version (`temporal worker deployment set-current-version`).",
    ),
  AGENT_VERSIONING_DEFAULT: z
    .enum(RUN_VERSIONINGS, { message: 'expected pinned or auto-upgrade' })
    .default(VERSIONING_DEFAULTS.defaultVersioning)
    .describe(
      'How runs started without a `versioning` of their own move between builds on a versioned worker: `auto-upgrade` (to the current build at their next workflow task) or `pinned` (on the build they started on, to their end).',
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
