import { z } from 'zod';
import { DEFAULT_NAMESPACE, DEFAULT_TASK_QUEUE } from '../shared/defaults/names';
import { hostPort, parseEnvironment } from './environment';
import { loadTemporalConfig, type TemporalConfig } from './temporal';

/**
 * What the one-machine processes (`npm start`, `npm run demo`,
 * `npm run server`) read: a Temporal server to use instead of the local dev
 * server they start, and where runs live on it.
 */
export const localServerSchema = z.object({
  TEMPORAL_ADDRESS: hostPort
    .optional()
    .describe(
      'Unset (with no profile or config file), `npm start`, the demo and `npm run server` start or reuse a local dev server.',
    ),
  TEMPORAL_UI_URL: z
    .url({ protocol: /^https?$/, message: 'expected an http(s) URL, for example http://localhost:8233' })
    .optional()
    .describe('The web UI of that server, for the links `npm start` and the demo print.'),
});

/** Where the one-machine processes that run a worker put their runs. */
export const localRunSchema = z.object({
  TEMPORAL_NAMESPACE: z.string().min(1).default(DEFAULT_NAMESPACE).describe('The Temporal namespace runs live in.'),
  AGENT_TASK_QUEUE: z
    .string()
    .min(1)
    .default(DEFAULT_TASK_QUEUE)
    .describe('The task queue workers poll and runs start on.'),
});

/** The server a one-machine process uses instead of its own dev server. */
export interface LocalServerConfig {
  /** The server named by `TEMPORAL_ADDRESS` or a profile; unset, the process starts (or reuses) a local dev server. */
  address?: string;
  /** `TEMPORAL_UI_URL`. */
  uiUrl?: string;
  /** The whole connection (TLS, API key, namespace, profile) when a server is named. */
  temporal?: TemporalConfig;
}

/**
 * Reads {@link localServerSchema}; `TEMPORAL_ADDRESS`, `TEMPORAL_PROFILE` or `TEMPORAL_CONFIG_FILE` name a server to
 * use. The user's default config file alone does not, so a Cloud profile there never turns the offline demo into a
 * run on Cloud.
 */
export function loadLocalServerConfig(env: NodeJS.ProcessEnv = process.env): LocalServerConfig {
  const values = parseEnvironment(localServerSchema, env);
  const named =
    values.TEMPORAL_ADDRESS !== undefined || Boolean(env.TEMPORAL_PROFILE) || Boolean(env.TEMPORAL_CONFIG_FILE);
  const temporal = named ? loadTemporalConfig(env, { readDefaultFile: Boolean(env.TEMPORAL_PROFILE) }) : undefined;
  return {
    ...(temporal === undefined ? {} : { address: temporal.address, temporal }),
    ...(values.TEMPORAL_UI_URL === undefined ? {} : { uiUrl: values.TEMPORAL_UI_URL.replace(/\/+$/, '') }),
  };
}

/** Reads {@link localRunSchema}: the namespace and task queue of `npm start` and the demo. */
export function loadLocalRunConfig(env: NodeJS.ProcessEnv = process.env): { namespace: string; taskQueue: string } {
  const values = parseEnvironment(localRunSchema, env);
  return { namespace: values.TEMPORAL_NAMESPACE, taskQueue: values.AGENT_TASK_QUEUE };
}
