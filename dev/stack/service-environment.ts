import { STACK_DEFAULTS } from '../../src/shared/defaults/stack';

/**
 * The environment of a part of the stack that needs none of the agent's secrets (PostgreSQL, Temporal's server, SQL
 * tool and web UI): the allow-listed variables of `source` ({@link STACK_DEFAULTS.inheritedEnvironment} and `LC_*`),
 * then `extra`. A variable that is not on the list never reaches them, whatever its name.
 */
export function serviceEnvironment(
  extra: NodeJS.ProcessEnv = {},
  source: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const allowed = new Set<string>(STACK_DEFAULTS.inheritedEnvironment);
  const inherited = Object.entries(source).filter(
    ([name, value]) => value !== undefined && (allowed.has(name) || name.startsWith('LC_')),
  );
  return { ...Object.fromEntries(inherited), ...extra };
}
