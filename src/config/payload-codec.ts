import type { DataConverter } from '@temporalio/common';
import { z } from 'zod';
import { payloadCodecDataConverter } from '../codec/data-converter';
import { CodecKeyError, parseCodecKeys, readCodecKeyFile, type CodecKey } from '../codec/codec-keys';
import { ConfigError, parseEnvironment } from './environment';

/** The keys of the payload codec: set one of the two, or neither for payloads in clear. */
export const payloadCodecSchema = z.object({
  AGENT_CODEC_KEYS: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Payload encryption keys, `id=base64key` separated by commas, the primary (used for new payloads) first; ' +
        'older keys stay listed to read older runs. Unset with AGENT_CODEC_KEY_FILE unset: payloads in clear.',
    ),
  AGENT_CODEC_KEY_FILE: z
    .string()
    .min(1)
    .optional()
    .describe(
      'A file of payload encryption keys, one `id=base64key` per line, the primary first (instead of AGENT_CODEC_KEYS).',
    ),
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
    if (error instanceof CodecKeyError) throw new ConfigError(error.message);
    throw error;
  }
  return [];
}

/** What a process encrypts its payloads with, from the environment. */
export interface PayloadEncryption {
  /** For the process's worker and client: the codec with the configured keys, or a keyless one. */
  dataConverter: DataConverter;
  /** The configured key ids, primary first; empty: payloads in clear. */
  keyIds: string[];
}

/**
 * The data converter of the environment's codec keys, for a process's worker and client. Without keys payloads stay
 * in clear, and an encrypted payload fails with an error that names its key id (not Temporal's "Unknown encoding").
 */
export function loadPayloadEncryption(env: NodeJS.ProcessEnv = process.env): PayloadEncryption {
  const keys = loadCodecKeys(env);
  return { dataConverter: payloadCodecDataConverter(keys), keyIds: keys.map((key) => key.id) };
}

/** One line for a process's start: whether its payloads are encrypted, and with which key. */
export function describePayloadEncryption(keyIds: readonly string[]): string {
  if (keyIds.length === 0) return 'payloads in clear (no AGENT_CODEC_KEYS or AGENT_CODEC_KEY_FILE)';
  const older =
    keyIds.length > 1
      ? `; also reads ${keyIds
          .slice(1)
          .map((id) => `"${id}"`)
          .join(', ')}`
      : '';
  return `payloads encrypted (AES-256-GCM, key "${keyIds[0]}"${older})`;
}
