import { z } from 'zod';
import { maskUrlCredentials } from '../redaction/url-credentials';
import { ConfigError } from './config-error';

/**
 * The parsing every configuration module shares: a zod schema per group of
 * variables, empty variables counted as unset, every problem reported in one
 * error that names the variable, its value and what was expected.
 */

/** A `host:port` address, for example `localhost:7233`. */
export const hostPort = z
  .string()
  .regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):\d{1,5}$/, 'expected host:port, for example localhost:7233')
  .refine((value) => Number(/:(\d{1,5})$/.exec(value)?.[1] ?? 0) <= 65_535, 'the port must be at most 65535');

/** Runs every load, so one error names every problem rather than only the first. */
export function loadAll<Loads extends Record<string, () => unknown>>(
  loads: Loads,
): { [Key in keyof Loads]: ReturnType<Loads[Key]> } {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [key, load] of Object.entries(loads)) {
    try {
      values[key] = load();
    } catch (error) {
      if (!ConfigError.isInstance(error)) throw error;
      problems.push(error.message);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  return values as { [Key in keyof Loads]: ReturnType<Loads[Key]> };
}

/**
 * The variables `schema` names, parsed; empty ones count as unset. A problem
 * names the variable and its value, except for `secrets`, shown as (hidden);
 * credentials in a URL (`user:password@`) are shown as `***`.
 */
export function parseEnvironment<Schema extends z.ZodObject>(
  schema: Schema,
  env: NodeJS.ProcessEnv,
  secrets: readonly string[] = [],
): z.output<Schema> {
  const present = Object.fromEntries(Object.keys(schema.shape).flatMap((key) => (env[key] ? [[key, env[key]]] : [])));
  const parsed = schema.safeParse(present);
  if (parsed.success) return parsed.data;
  const shown = (key: string) =>
    secrets.includes(key) ? '(hidden)' : JSON.stringify(maskUrlCredentials(env[key] ?? ''));
  const problems = parsed.error.issues.map(
    (issue) => `${issue.path.join('.')}=${shown(String(issue.path[0]))}: ${issue.message}`,
  );
  throw new ConfigError(`Bad configuration: ${problems.join('; ')}`);
}
