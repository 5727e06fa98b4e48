import { z } from 'zod';
import { WORKER_DEFAULTS } from '../shared/defaults/worker';
import { parseEnvironment } from './environment';

export const logLevelSchema = z.object({
  LOG_LEVEL: z
    .string()
    .transform((level) => level.toUpperCase())
    .pipe(
      z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'], { message: 'expected trace, debug, info, warn or error' }),
    )
    .default(WORKER_DEFAULTS.logLevel)
    .describe("The Temporal SDK's log level (and the API's): trace, debug, info, warn or error."),
});

export type LogLevel = 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

/** The process's log level, `LOG_LEVEL`. */
export function loadLogLevel(env: NodeJS.ProcessEnv = process.env): LogLevel {
  return parseEnvironment(logLevelSchema, env).LOG_LEVEL;
}
