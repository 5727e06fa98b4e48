import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fromTomlProfile, loadClientConfig, type ClientConfigTLS } from '@temporalio/envconfig';
// The TOML-level loader, for the profile's `[codec]` table: envconfig 1.24's public `ClientConfigProfile` leaves it
// out. Its result goes through the public `fromTomlProfile`, so everything but the codec reads as envconfig's API.
import { tomlLoadClientConfigProfile } from '@temporalio/envconfig/lib/envconfig-toml';
import { z } from 'zod';
import { DEFAULT_NAMESPACE, DEFAULT_TASK_QUEUE, DEFAULT_TEMPORAL_ADDRESS } from '../shared/defaults/names';
import { hostPort, parseEnvironment } from './environment';
import { ConfigError } from './config-error';

/*
 * The Temporal connection as Temporal's CLI and SDKs configure it (`@temporalio/envconfig`: a TOML profile, then
 * `TEMPORAL_*` over it), with checks, the older `TEMPORAL_TLS_CERT`/`TEMPORAL_TLS_KEY` aliases and errors naming
 * the file.
 */

const optionalText = () => z.string().min(1).optional();
const boolText = z.enum(['true', 'false', '1', '0'], { message: 'expected true, false, 1 or 0' });

/** The Temporal connection of a process that joins a deployment: the worker, the API alone, the CLI. */
export const temporalSchema = z.object({
  TEMPORAL_CONFIG_FILE: optionalText().describe(
    "The TOML file of connection profiles, as the Temporal CLI writes it; unset: `temporalio/temporal.toml` in the user's configuration directory, when it exists.",
  ),
  TEMPORAL_PROFILE: optionalText().describe(
    'The profile of the config file to use (unset: `default`); a profile the file lacks is an error.',
  ),
  // The defaults below are what applies when neither this variable nor the profile sets a value (for the reference).
  TEMPORAL_ADDRESS: hostPort.default(DEFAULT_TEMPORAL_ADDRESS).describe('The Temporal frontend, host:port.'),
  TEMPORAL_NAMESPACE: z.string().min(1).default(DEFAULT_NAMESPACE).describe('The Temporal namespace runs live in.'),
  AGENT_TASK_QUEUE: taskQueue(),
  TEMPORAL_API_KEY: optionalText().describe('An API key (Temporal Cloud), sent as a bearer token; turns TLS on.'),
  TEMPORAL_TLS: boolText.optional().describe('`true` turns TLS on (system roots unless a CA is given), `false` off.'),
  TEMPORAL_TLS_CLIENT_CERT_PATH: optionalText().describe(
    'Path of the mTLS client certificate, with TEMPORAL_TLS_CLIENT_KEY_PATH.',
  ),
  TEMPORAL_TLS_CLIENT_CERT_DATA: optionalText().describe('The client certificate itself (PEM), instead of its path.'),
  TEMPORAL_TLS_CLIENT_KEY_PATH: optionalText().describe(
    'Path of the mTLS client key, with TEMPORAL_TLS_CLIENT_CERT_PATH.',
  ),
  TEMPORAL_TLS_CLIENT_KEY_DATA: optionalText().describe('The client key itself (PEM), instead of its path.'),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: optionalText().describe(
    "Path of the CA the server's certificate must chain to (default: the system roots).",
  ),
  TEMPORAL_TLS_SERVER_CA_CERT_DATA: optionalText().describe(
    'The server CA certificate itself (PEM), instead of its path.',
  ),
  TEMPORAL_TLS_SERVER_NAME: optionalText().describe(
    "The name the server's certificate must carry, when not the address's host (SNI).",
  ),
  TEMPORAL_TLS_CERT: optionalText().describe(
    'Older alias of TEMPORAL_TLS_CLIENT_CERT_PATH, set with TEMPORAL_TLS_KEY; the new name wins.',
  ),
  TEMPORAL_TLS_KEY: optionalText().describe(
    'Older alias of TEMPORAL_TLS_CLIENT_KEY_PATH, set with TEMPORAL_TLS_CERT; the new name wins.',
  ),
  TEMPORAL_GRPC_META_NAME: optionalText().describe(
    "`TEMPORAL_GRPC_META_<NAME>` adds the gRPC header `<name>` (lower case, `_` as `-`) to every call; empty removes the profile's.",
  ),
  TEMPORAL_CODEC_ENDPOINT: z
    .url({ protocol: /^https?$/, message: 'expected an http(s) URL, for example https://codec.example.com' })
    .optional()
    .describe('A remote payload codec (`POST <endpoint>/encode`, `/decode`), used by a process without codec keys.'),
  TEMPORAL_CODEC_AUTH: optionalText().describe('The `Authorization` header value sent to TEMPORAL_CODEC_ENDPOINT.'),
});

/** The variables whose values are secrets: never quoted in an error. */
const SECRET_VARIABLES = ['TEMPORAL_API_KEY', 'TEMPORAL_TLS_CLIENT_KEY_DATA', 'TEMPORAL_CODEC_AUTH'];

/** The task queue alone: what `AgentClient` and `startAgentRun` use when their caller names none. */
export const clientSchema = z.object({ AGENT_TASK_QUEUE: taskQueue() });

/** TLS settings, as envconfig describes them: each file given as `{ path }` or as `{ data }`. */
export type TemporalTlsConfig = ClientConfigTLS;

/** A remote payload codec: a codec server's base URL and the `Authorization` value it wants. */
export interface RemoteCodecConfig {
  endpoint: string;
  auth?: string;
}

/** The profile the connection settings came from, for the line a process prints at start. */
export interface TemporalConfigSource {
  /** The config file read. */
  file: string;
  /** The profile of it used. */
  profile: string;
}

export type TemporalConfig = {
  address: string;
  namespace: string;
  taskQueue: string;
  apiKey?: string;
  /** TLS; absent means plain TCP unless `apiKey` is set (an API key turns TLS on). `{ disabled: true }` forces it off. */
  tls?: TemporalTlsConfig;
  /** gRPC headers sent with every call. */
  grpcMetadata?: Record<string, string>;
  /** The remote payload codec named by the profile or `TEMPORAL_CODEC_ENDPOINT`. */
  codec?: RemoteCodecConfig;
  /** The profile the settings came from; absent when no config file was read (or the config was built by hand). */
  source?: TemporalConfigSource;
};

const ALIASES = [
  { alias: 'TEMPORAL_TLS_CERT', path: 'TEMPORAL_TLS_CLIENT_CERT_PATH', data: 'TEMPORAL_TLS_CLIENT_CERT_DATA' },
  { alias: 'TEMPORAL_TLS_KEY', path: 'TEMPORAL_TLS_CLIENT_KEY_PATH', data: 'TEMPORAL_TLS_CLIENT_KEY_DATA' },
] as const;

/**
 * Reads the Temporal connection settings: the profile (file from `TEMPORAL_CONFIG_FILE` or the default path,
 * profile from `TEMPORAL_PROFILE` or `default`), then the environment over it; empty variables count as unset.
 *
 * @param options.readDefaultFile false: read a config file only when `TEMPORAL_CONFIG_FILE` names one
 * @default options.readDefaultFile true
 */
export function loadTemporalConfig(
  env: NodeJS.ProcessEnv = process.env,
  options: { readDefaultFile?: boolean } = {},
): TemporalConfig {
  const values = parseEnvironment(temporalSchema, env, SECRET_VARIABLES);
  if ((values.TEMPORAL_TLS_CERT === undefined) !== (values.TEMPORAL_TLS_KEY === undefined)) {
    throw new ConfigError('Set both TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY for mTLS, or neither.');
  }
  const { file, text } =
    options.readDefaultFile === false && values.TEMPORAL_CONFIG_FILE === undefined
      ? {}
      : readConfigFile(env, values.TEMPORAL_CONFIG_FILE);
  const profileName = text === undefined ? undefined : (values.TEMPORAL_PROFILE ?? 'default');
  if (text === undefined && values.TEMPORAL_PROFILE !== undefined) {
    throw new ConfigError(
      `TEMPORAL_PROFILE=${JSON.stringify(values.TEMPORAL_PROFILE)} names a profile, but there is no config file ` +
        `(looked for ${file ?? 'none: TEMPORAL_CONFIG_FILE is not set'}). Set TEMPORAL_CONFIG_FILE to the file that holds it.`,
    );
  }
  const where = profileName === undefined ? 'the environment' : `profile "${profileName}" of ${file}`;
  const toml = loadProfile(env, values, file, text, profileName, where);
  const profile = fromTomlProfileChecked(toml, where);

  const address = profile.address ?? DEFAULT_TEMPORAL_ADDRESS;
  const addressCheck = hostPort.safeParse(address);
  if (!addressCheck.success) {
    throw new ConfigError(
      `The address ${JSON.stringify(address)} of ${where} is not host:port (for example localhost:7233).`,
    );
  }
  const tls = profile.tls;
  if (tls !== undefined && (tls.clientCert === undefined) !== (tls.clientKey === undefined)) {
    throw new ConfigError(
      `The TLS settings of ${where} have a client ${tls.clientCert === undefined ? 'key but no certificate' : 'certificate but no key'}: ` +
        'set both (TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH, or client_cert_path and client_key_path), or neither.',
    );
  }
  const codec = codecOf(toml.codec, where);
  return {
    address,
    namespace: profile.namespace ?? DEFAULT_NAMESPACE,
    taskQueue: values.AGENT_TASK_QUEUE,
    ...(profile.apiKey === undefined ? {} : { apiKey: profile.apiKey }),
    ...(tls === undefined ? {} : { tls }),
    ...(profile.grpcMeta === undefined || Object.keys(profile.grpcMeta).length === 0
      ? {}
      : { grpcMetadata: profile.grpcMeta }),
    ...(codec === undefined ? {} : { codec }),
    ...(text === undefined || file === undefined || profileName === undefined
      ? {}
      : { source: { file, profile: profileName } }),
  };
}

/** Where the settings of `config` came from, for a start line: `profile "prod" of /etc/temporal.toml`. */
export function describeTemporalSource(config: TemporalConfig): string {
  const source = config.source;
  return source === undefined ? 'no config file' : `profile "${source.profile}" of ${source.file}`;
}

/** `AGENT_TASK_QUEUE`, for a client whose caller names no task queue. */
export function loadClientTaskQueue(env: NodeJS.ProcessEnv = process.env): string {
  return parseEnvironment(clientSchema, env).AGENT_TASK_QUEUE;
}

/**
 * The config file envconfig reads when `TEMPORAL_CONFIG_FILE` is unset: `temporalio/temporal.toml` in the user's
 * configuration directory. Undefined when the environment names no such directory.
 */
export function defaultTemporalConfigFile(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = os.platform()) {
  let directory: string | undefined;
  if (platform === 'win32') directory = env.APPDATA || undefined;
  else if (platform === 'darwin')
    directory = env.HOME ? path.join(env.HOME, 'Library', 'Application Support') : undefined;
  else if (env.XDG_CONFIG_HOME) directory = path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : undefined;
  else directory = env.HOME ? path.join(env.HOME, '.config') : undefined;
  return directory === undefined ? undefined : path.join(directory, 'temporalio', 'temporal.toml');
}

/** The config file's path and text; no text when the default file does not exist. A named file must exist. */
function readConfigFile(env: NodeJS.ProcessEnv, named: string | undefined): { file?: string; text?: string } {
  const file = named ?? defaultTemporalConfigFile(env);
  if (file === undefined) return {};
  if (named === undefined && !existsSync(file)) return { file };
  try {
    return { file, text: readFileSync(file, 'utf8') };
  } catch (error) {
    throw new ConfigError(
      `Cannot read the Temporal config file ${file}${named === undefined ? '' : ' (TEMPORAL_CONFIG_FILE)'}: ${messageOf(error)}`,
    );
  }
}

/** envconfig's profile, with the environment over it; the errors it raises name the file and profile. */
function loadProfile(
  env: NodeJS.ProcessEnv,
  values: z.output<typeof temporalSchema>,
  file: string | undefined,
  text: string | undefined,
  profileName: string | undefined,
  where: string,
) {
  const overrides = envconfigVariables(env, values);
  try {
    return tomlLoadClientConfigProfile({
      ...(text === undefined ? { disableFile: true } : { configSource: { data: text }, profile: profileName }),
      overrideEnvVars: overrides,
    });
  } catch (error) {
    if (text !== undefined && profileName !== undefined && /Profile '.*' not found/.test(messageOf(error))) {
      const names = Object.keys(loadClientConfig({ configSource: { data: text } }).profiles);
      throw new ConfigError(
        `The Temporal config file ${file} has no profile "${profileName}"` +
          `${values.TEMPORAL_PROFILE === undefined ? '' : ' (TEMPORAL_PROFILE)'}; its profiles: ` +
          `${names.length === 0 ? 'none' : names.map((name) => `"${name}"`).join(', ')}.`,
      );
    }
    throw new ConfigError(
      `Cannot use ${text === undefined ? where : `the Temporal config file ${file}`}: ${messageOf(error)}`,
    );
  }
}

/**
 * The variables envconfig reads, as it should see them: empty ones dropped (they count as unset here), except
 * `TEMPORAL_GRPC_META_*`, where empty removes a header; the file and profile left out (chosen here already); and the
 * aliases given as envconfig's names where those are unset.
 */
function envconfigVariables(env: NodeJS.ProcessEnv, values: z.output<typeof temporalSchema>): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !name.startsWith('TEMPORAL_')) continue;
    if (name === 'TEMPORAL_CONFIG_FILE' || name === 'TEMPORAL_PROFILE') continue;
    if (value === '' && !name.startsWith('TEMPORAL_GRPC_META_')) continue;
    variables[name] = value;
  }
  for (const { alias, path: pathName, data } of ALIASES) {
    const value = values[alias];
    if (value !== undefined && variables[pathName] === undefined && variables[data] === undefined) {
      variables[pathName] = value;
    }
  }
  return variables;
}

function fromTomlProfileChecked(toml: Parameters<typeof fromTomlProfile>[0], where: string) {
  try {
    return fromTomlProfile(toml);
  } catch (error) {
    throw new ConfigError(`The TLS settings of ${where}: ${messageOf(error)}`);
  }
}

function codecOf(
  codec: { endpoint?: string; auth?: string } | undefined,
  where: string,
): RemoteCodecConfig | undefined {
  if (codec?.endpoint === undefined || codec.endpoint === '') return undefined;
  const endpoint = z.url({ protocol: /^https?$/ }).safeParse(codec.endpoint);
  if (!endpoint.success) {
    throw new ConfigError(`The codec endpoint ${JSON.stringify(codec.endpoint)} of ${where} is not an http(s) URL.`);
  }
  return { endpoint: endpoint.data.replace(/\/+$/, ''), ...(codec.auth ? { auth: codec.auth } : {}) };
}

function messageOf(error: unknown): string {
  // Not `instanceof Error`: errors of Node's fs may come from another realm (jest's sandbox).
  return typeof error === 'object' && error !== null && 'message' in error ? String(error.message) : String(error);
}

function taskQueue() {
  return z.string().min(1).default(DEFAULT_TASK_QUEUE).describe('The task queue workers poll and runs start on.');
}
