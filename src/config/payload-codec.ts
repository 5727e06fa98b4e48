import type { DataConverter } from '@temporalio/common';
import { z } from 'zod';
import { ENCODED_FAILURE_CONVERTER_PATH, payloadCodecDataConverter } from '../codec/data-converter';
import { RemotePayloadCodec } from '../codec/remote-codec';
import { parseCodecKeys, readCodecKeyFile, type CodecKey } from '../codec/codec-keys';
import { CodecKeyError } from '../codec/codec-key-error';
import { parseEnvironment } from './environment';
import { ConfigError } from './config-error';
import { loadTemporalConfig, type TemporalConfig } from './temporal';

/** The keys of the payload codec: set one of the two, or neither for payloads in clear. */
export const payloadCodecSchema = z.object({
  AGENT_CODEC_KEYS: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Payload encryption keys, `id=base64key` separated by commas, the primary first; unset (and no key file): payloads in clear.',
    ),
  AGENT_CODEC_KEY_FILE: z
    .string()
    .min(1)
    .optional()
    .describe('A file of payload encryption keys, one `id=base64key` per line, the primary first.'),
});

/** The codec keys of the environment, primary first; none when neither variable is set. */
export function loadCodecKeys(env: NodeJS.ProcessEnv = process.env): CodecKey[] {
  const values = parseEnvironment(payloadCodecSchema, env, ['AGENT_CODEC_KEYS']);
  if (values.AGENT_CODEC_KEYS !== undefined && values.AGENT_CODEC_KEY_FILE !== undefined) {
    throw new ConfigError('Set AGENT_CODEC_KEYS or AGENT_CODEC_KEY_FILE, not both.');
  }
  try {
    if (values.AGENT_CODEC_KEYS !== undefined) return parseCodecKeys(values.AGENT_CODEC_KEYS, 'AGENT_CODEC_KEYS');
    if (values.AGENT_CODEC_KEY_FILE !== undefined) return readCodecKeyFile(values.AGENT_CODEC_KEY_FILE);
  } catch (error) {
    if (CodecKeyError.isInstance(error)) throw new ConfigError(error.message);
    throw error;
  }
  return [];
}

/** What a process encrypts its payloads with, from the environment. */
export interface PayloadEncryption {
  /** For the process's worker and client: the codec with the configured keys, a remote codec, or a keyless one. */
  dataConverter: DataConverter;
  /** The configured key ids, primary first; empty: no local key. */
  keyIds: string[];
  /** The codec server payloads go through, when the process holds no key but its Temporal profile names one. */
  remoteEndpoint?: string;
}

/**
 * The data converter of the environment: the process's own keys (`AGENT_CODEC_KEYS` / `AGENT_CODEC_KEY_FILE`) when it
 * holds any, else the profile's or `TEMPORAL_CODEC_ENDPOINT`'s codec server, else clear payloads that name the key of
 * an encrypted one.
 *
 * @param temporal the process's Temporal settings, when it loaded them already (they carry the endpoint)
 */
export function loadPayloadEncryption(
  env: NodeJS.ProcessEnv = process.env,
  temporal: Pick<TemporalConfig, 'codec' | 'namespace'> = loadTemporalConfig(env),
): PayloadEncryption {
  const keys = loadCodecKeys(env);
  if (keys.length === 0 && temporal.codec !== undefined) {
    const remote = new RemotePayloadCodec({ ...temporal.codec, namespace: temporal.namespace });
    return {
      dataConverter: { ...payloadCodecDataConverter(remote), failureConverterPath: ENCODED_FAILURE_CONVERTER_PATH },
      keyIds: [],
      remoteEndpoint: temporal.codec.endpoint,
    };
  }
  return { dataConverter: payloadCodecDataConverter(keys), keyIds: keys.map((key) => key.id) };
}

/** One line for a process's start: whether its payloads are encrypted, and how. */
export function describePayloadEncryption(encryption: Pick<PayloadEncryption, 'keyIds' | 'remoteEndpoint'>): string {
  const { keyIds, remoteEndpoint } = encryption;
  if (keyIds.length === 0) {
    return remoteEndpoint === undefined
      ? 'payloads in clear (no AGENT_CODEC_KEYS or AGENT_CODEC_KEY_FILE)'
      : `payloads encrypted through the codec server ${remoteEndpoint}`;
  }
  const older =
    keyIds.length > 1
      ? `; also reads ${keyIds
          .slice(1)
          .map((id) => `"${id}"`)
          .join(', ')}`
      : '';
  return `payloads encrypted (AES-256-GCM, key "${keyIds[0]}"${older})`;
}
