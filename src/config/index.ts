import { readFileSync } from 'node:fs';
import { urlCredentials } from '../redaction/url-credentials';
import { loadAll } from './environment';
import { loadLogLevel, type LogLevel } from './log-level';
import { loadModelConfig, type ModelConfig } from './model';
import { loadMcpServers, mcpConfigSecrets } from './mcp';
import { modelEndpointSecrets } from './model-endpoints';
import type { McpServers } from './mcp-servers';
import { loadTemporalConfig, type TemporalConfig } from './temporal';
import { loadWorkerDeployment } from './worker-deployment';
import type { AgentWorkerDeployment } from '../shared/versioning';

/**
 * Configuration from the environment, checked once at start so a typo fails the process, not a run. Each group has its
 * schema in its own module; `variables.ts` lists them all for the reference.
 */

export { ConfigError } from './config-error';
export { loadLogLevel, type LogLevel } from './log-level';
export { loadModelConfig, type ModelConfig } from './model';
export { loadTemporalConfig, type TemporalConfig } from './temporal';

/** Everything the worker reads, with every problem reported in one error. */
export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env): {
  temporal: TemporalConfig;
  model: ModelConfig;
  logLevel: LogLevel;
  mcpServers: McpServers;
  /** Undefined: an unversioned worker. */
  deployment: AgentWorkerDeployment | undefined;
} {
  return loadAll({
    temporal: () => loadTemporalConfig(env),
    model: () => loadModelConfig(env),
    logLevel: () => loadLogLevel(env),
    mcpServers: () => loadMcpServers(env),
    deployment: () => loadWorkerDeployment(env),
  });
}

/**
 * Every secret in the worker's environment (keys, tokens, TLS private keys, the profile's secrets, credentials in URLs
 * and MCP config), for redaction. Never throws, so a message about bad configuration is redacted too.
 */
export function configuredSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  const secrets = [
    env.OPENAI_API_KEY,
    env.AGENT_API_TOKEN,
    env.AGENT_CODEC_SERVER_TOKEN,
    env.TEMPORAL_API_KEY,
    env.TEMPORAL_CODEC_AUTH,
    ...codecKeyStrings(env.AGENT_CODEC_KEYS),
    ...codecKeyStrings(readQuietly(env.AGENT_CODEC_KEY_FILE)),
    ...urlCredentials(env.OPENAI_BASE_URL ?? ''),
    ...keySecrets(readQuietly(env.TEMPORAL_TLS_KEY)),
    ...keySecrets(readQuietly(env.TEMPORAL_TLS_CLIENT_KEY_PATH)),
    ...keySecrets(env.TEMPORAL_TLS_CLIENT_KEY_DATA),
    ...keySecrets(readQuietly(env.AGENT_STREAM_TLS_KEY)),
    ...mcpConfigSecrets(env),
    ...modelEndpointSecrets(env),
  ];
  try {
    const profile = loadTemporalConfig(env);
    const clientKey = profile.tls?.clientKey;
    secrets.push(
      profile.apiKey,
      profile.codec?.auth,
      ...keySecrets(
        clientKey === undefined
          ? undefined
          : 'path' in clientKey
            ? readQuietly(clientKey.path)
            : Buffer.from(clientKey.data).toString('utf8'),
      ),
    );
  } catch {
    // A configuration that does not load connects nowhere; its error names no secret of a profile.
  }
  return [...new Set(secrets.filter((secret): secret is string => secret !== undefined && secret !== ''))];
}

/** A PEM key whole, trimmed, and line by line without its BEGIN/END lines: any of them may reach a message. */
function keySecrets(key: string | undefined): string[] {
  if (!key) return [];
  return [
    key,
    key.trim(),
    ...key
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('-----')),
  ];
}

/** A file's text; undefined when it is not named or cannot be read (the connection reports that). */
function readQuietly(file: string | undefined): string | undefined {
  if (!file) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The base64 keys of an `AGENT_CODEC_KEYS` value or key file, whatever its shape: each is a secret to redact. */
function codecKeyStrings(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value.split(/[,\n]/).flatMap((entry) => {
    // Comments are cut as the key file's reader cuts them.
    const uncommented = entry.replace(/#.*$/, '');
    const key = uncommented.slice(uncommented.indexOf('=') + 1).trim();
    return key.length >= 16 ? [key] : [];
  });
}
