import { z } from 'zod';
import { AesGcmPayloadCodec } from '../codec/aes-gcm-codec';
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

/** The payload codec of the environment; undefined when no key is configured (payloads in clear). */
export function loadPayloadCodec(env: NodeJS.ProcessEnv = process.env): AesGcmPayloadCodec | undefined {
  const keys = loadCodecKeys(env);
  return keys.length === 0 ? undefined : new AesGcmPayloadCodec(keys);
}
