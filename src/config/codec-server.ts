import { z } from 'zod';
import type { CodecKey } from '../codec/codec-keys';
import { CODEC_SERVER_DEFAULTS } from '../shared/defaults/codec-server';
import { loadAll, parseEnvironment } from './environment';
import { ConfigError } from './config-error';
import { loadCodecKeys } from './payload-codec';

/** The codec server's settings, from the environment; every problem is reported at once. */
export interface CodecServerConfig {
  host: string;
  port: number;
  /** The bearer token (and the secret the sign-in cookie is derived from). */
  token: string;
  /** The origins a browser may call from (exact `scheme://host:port`). */
  corsOrigins: string[];
  /** The payload keys, primary first; at least one. */
  keys: CodecKey[];
}

const origin = z
  .string()
  .transform((value) => value.trim().replace(/\/+$/, ''))
  .pipe(
    z
      .string()
      .regex(/^https?:\/\/[^\s/?#]+$/, 'expected origins like http://localhost:8233 (scheme://host:port, no path)'),
  );

/** The codec server's listener, credential and browser origins (its keys are the payload codec's). */
export const codecServerSchema = z.object({
  AGENT_CODEC_SERVER_HOST: z
    .string()
    .min(1)
    .default(CODEC_SERVER_DEFAULTS.host)
    .describe('The address the codec server (`agent-runner codec-server`) binds.'),
  AGENT_CODEC_SERVER_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65_535)
    .default(CODEC_SERVER_DEFAULTS.port)
    .describe("The codec server's port; 0 picks a free one."),
  AGENT_CODEC_SERVER_TOKEN: z
    .string()
    .min(16, 'use at least 16 characters (for example `openssl rand -hex 32`)')
    .optional()
    .describe(
      'The codec server\'s required credential (16+ characters), sent by the CLI as `--codec-auth "Bearer <token>"` or entered once at `/login`.',
    ),
  AGENT_CODEC_CORS_ORIGINS: z
    .string()
    .default(CODEC_SERVER_DEFAULTS.corsOrigins.join(','))
    .transform((value) => value.split(',').filter((entry) => entry.trim() !== ''))
    .pipe(z.array(origin))
    .describe('Comma-separated web UI origins (scheme://host:port) allowed to call the codec server from a browser.'),
});

/** Reads `AGENT_CODEC_SERVER_*`, `AGENT_CODEC_CORS_ORIGINS` and the payload keys; the server needs a token and a key. */
export function loadCodecServerConfig(env: NodeJS.ProcessEnv = process.env): CodecServerConfig {
  const { values, keys } = loadAll({
    values: () => {
      const values = parseEnvironment(codecServerSchema, env, ['AGENT_CODEC_SERVER_TOKEN']);
      if (values.AGENT_CODEC_SERVER_TOKEN === undefined) {
        throw new ConfigError(
          'The codec server needs a credential: set AGENT_CODEC_SERVER_TOKEN to a secret of 16+ characters ' +
            '(for example `export AGENT_CODEC_SERVER_TOKEN=$(openssl rand -hex 32)`).',
        );
      }
      return { ...values, AGENT_CODEC_SERVER_TOKEN: values.AGENT_CODEC_SERVER_TOKEN };
    },
    keys: () => {
      const keys = loadCodecKeys(env);
      if (keys.length === 0) {
        throw new ConfigError(
          'The codec server needs the payload keys: set AGENT_CODEC_KEYS or AGENT_CODEC_KEY_FILE as the workers have them.',
        );
      }
      return keys;
    },
  });
  return {
    host: values.AGENT_CODEC_SERVER_HOST,
    port: values.AGENT_CODEC_SERVER_PORT,
    token: values.AGENT_CODEC_SERVER_TOKEN,
    corsOrigins: values.AGENT_CODEC_CORS_ORIGINS,
    keys,
  };
}
