import { z } from 'zod';
import { ACTIVITY_DEFAULTS } from '../shared/defaults/activities';
import { msToNumber } from '../shared/duration';
import { parseEnvironment } from './environment';
import { ConfigError } from './config-error';

/** A duration variable: text `ms` reads ("50s", "2 minutes") or a number of milliseconds. */
const durationVariable = (meaning: string, fallback: string) =>
  z
    .string()
    .min(1)
    .default(fallback)
    .refine((text) => readMs(text) !== undefined, 'expected a duration such as "50s" or "2 minutes"')
    .describe(meaning);

/** How the worker's activities heartbeat: what a lost worker and each heartbeat cost (see docs/guide/cost.md). */
export const heartbeatSchema = z.object({
  AGENT_HEARTBEAT_TIMEOUT: durationVariable(
    'How long a model or tool call may go without a heartbeat before it runs again elsewhere; the same on every worker.',
    ACTIVITY_DEFAULTS.heartbeatTimeout,
  ),
  AGENT_HEARTBEAT_INTERVAL: durationVariable(
    'How often a running call heartbeats (each a billed Temporal Cloud action); at most half the timeout.',
    `${ACTIVITY_DEFAULTS.heartbeatIntervalMs / 1000} seconds`,
  ),
});

/** A worker's heartbeat settings, in milliseconds. */
export interface HeartbeatSettings {
  timeoutMs: number;
  intervalMs: number;
}

/** The heartbeat settings as a worker's options give them; each left out comes from the environment, else the default. */
export interface HeartbeatOptions {
  /** @default `AGENT_HEARTBEAT_TIMEOUT`, else 50 seconds */
  timeout?: number | string;
  /** @default `AGENT_HEARTBEAT_INTERVAL`, else 25 seconds */
  interval?: number | string;
}

/**
 * The heartbeat settings: `options` first, then {@link heartbeatSchema}'s variables, then the defaults. An interval
 * longer than half the timeout would lose healthy calls to one late heartbeat: it is refused, naming both.
 */
export function heartbeatSettings(
  options: HeartbeatOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): HeartbeatSettings {
  const values = parseEnvironment(heartbeatSchema, env);
  const timeoutMs =
    readOption('heartbeat.timeout', options.timeout) ?? (readMs(values.AGENT_HEARTBEAT_TIMEOUT) as number);
  const intervalMs =
    readOption('heartbeat.interval', options.interval) ?? (readMs(values.AGENT_HEARTBEAT_INTERVAL) as number);
  if (intervalMs * 2 > timeoutMs)
    throw new ConfigError(
      `Bad configuration: the heartbeat interval (${intervalMs / 1000} s) must be at most half the heartbeat timeout (${timeoutMs / 1000} s), or one late heartbeat loses a healthy call.`,
    );
  return { timeoutMs, intervalMs };
}

function readOption(name: string, value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const millis = readMs(value);
  if (millis === undefined)
    throw new ConfigError(`Bad configuration: ${name} must be a positive duration, not ${JSON.stringify(value)}.`);
  return millis;
}

function readMs(value: number | string): number | undefined {
  try {
    const millis = msToNumber(typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);
    return Number.isFinite(millis) && millis >= 1_000 ? Math.round(millis) : undefined;
  } catch {
    return undefined;
  }
}
