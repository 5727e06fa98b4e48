import { readFileSync } from 'node:fs';
import { urlCredentials } from '../redaction/url-credentials';
import { loadAll } from './environment';
import { loadLogLevel, type LogLevel } from './log-level';
import { loadModelConfig, type ModelConfig } from './model';
import { loadTemporalConfig, type TemporalConfig } from './temporal';

/**
 * Configuration from the environment, checked once at start so a typo fails
 * the process with a message instead of surfacing as a hung run. Each group
 * of variables has its schema in a module of its own here (temporal, model,
 * log-level, api, agent-tools, model-stream, local-server, temporal-cli);
 * `variables.ts` lists them all, with the processes that read them, for the
 * configuration reference. This module holds the worker's whole
 * configuration and re-exports what most processes load.
 */

export { ConfigError } from './environment';
export { loadLogLevel, type LogLevel } from './log-level';
export { loadModelConfig, type ModelConfig } from './model';
export { loadTemporalConfig, type TemporalConfig } from './temporal';

/** Everything the worker reads, with every problem reported in one error. */
export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env): {
  temporal: TemporalConfig;
  model: ModelConfig;
  logLevel: LogLevel;
} {
  return loadAll({
    temporal: () => loadTemporalConfig(env),
    model: () => loadModelConfig(env),
    logLevel: () => loadLogLevel(env),
  });
}

/**
 * Every secret in the worker's environment, for redaction from failures and
 * log lines: `OPENAI_API_KEY`, `AGENT_API_TOKEN`, `AGENT_CODEC_SERVER_TOKEN`, `TEMPORAL_API_KEY`, the
 * contents of the `TEMPORAL_TLS_KEY` file (whole and line by line, without
 * its BEGIN/END lines) and credentials in `OPENAI_BASE_URL`. Never throws:
 * it is read even when the configuration is bad, so the message about that
 * is redacted too; a key file that cannot be read holds nothing to redact yet.
 */
export function configuredSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  const secrets = [
    env.OPENAI_API_KEY,
    env.AGENT_API_TOKEN,
    env.AGENT_CODEC_SERVER_TOKEN,
    env.TEMPORAL_API_KEY,
    ...codecKeyStrings(env.AGENT_CODEC_KEYS),
    ...urlCredentials(env.OPENAI_BASE_URL ?? ''),
  ];
  if (env.TEMPORAL_TLS_KEY) {
    try {
      const key = readFileSync(env.TEMPORAL_TLS_KEY, 'utf8');
      secrets.push(
        key,
        key.trim(),
        ...key
          .split(/\r?\n/)
          .map((line) => line.trim())
          .filter((line) => !line.startsWith('-----')),
      );
    } catch {
      // The connection reports the missing file; there is no key material to hide.
    }
  }
  return [...new Set(secrets.filter((secret): secret is string => secret !== undefined && secret !== ''))];
}

/** The base64 keys of an `AGENT_CODEC_KEYS` value, whatever its shape: each is a secret to redact. */
function codecKeyStrings(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value.split(/[,\n]/).flatMap((entry) => {
    const key = entry.slice(entry.indexOf('=') + 1).trim();
    return key.length >= 16 ? [key] : [];
  });
}
