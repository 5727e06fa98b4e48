import { z } from 'zod';
import { parseEnvironment } from './environment';

/** Where a process that starts a local dev server finds, or keeps, the Temporal CLI. */
export const temporalCliSchema = z.object({
  TEMPORAL_CLI_PATH: z
    .string()
    .min(1)
    .optional()
    .describe('A Temporal CLI executable to use instead of looking on PATH, in the cache, or building one.'),
  AGENT_RUNNER_CACHE_DIR: z
    .string()
    .min(1)
    .optional()
    .describe("Where the built Temporal CLI is cached; unset: the platform's cache directory."),
  XDG_CACHE_HOME: z
    .string()
    .min(1)
    .optional()
    .describe('The cache directory on Linux when AGENT_RUNNER_CACHE_DIR is unset; unset, ~/.cache.'),
  LOCALAPPDATA: z
    .string()
    .min(1)
    .optional()
    .describe('The cache directory on Windows when AGENT_RUNNER_CACHE_DIR is unset.'),
});

export type TemporalCliConfig = z.output<typeof temporalCliSchema>;

/** Reads {@link temporalCliSchema}; empty variables count as unset. */
export function loadTemporalCliConfig(env: NodeJS.ProcessEnv = process.env): TemporalCliConfig {
  return parseEnvironment(temporalCliSchema, env);
}
