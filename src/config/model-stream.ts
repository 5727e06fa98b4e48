import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { MODEL_STREAM_DEFAULTS } from '../shared/defaults/model-stream';
import { parseEnvironment } from './environment';
import { ConfigError } from './config-error';

/** The worker's delta server, which streams a model call's text to followers while the call runs. */
export const modelStreamSchema = z.object({
  AGENT_STREAM_HOST: z
    .string()
    .min(1)
    .default(MODEL_STREAM_DEFAULTS.host)
    .describe("The address the worker's delta server binds."),
  AGENT_STREAM_PORT: z.coerce
    .number({ message: 'expected a port number, 0 to 65535' })
    .int()
    .min(0)
    .max(65_535)
    .default(MODEL_STREAM_DEFAULTS.port)
    .describe("The delta server's port; 0 picks a free one."),
  AGENT_STREAM_PUBLIC_URL: z
    .url({ protocol: /^https?$/, message: 'expected an http(s) URL, for example http://worker-1:7300' })
    .optional()
    .describe(
      "This worker's base URL as followers reach it, when not the bound address (unset on a wildcard host: its host name).",
    ),
  AGENT_STREAM_TLS_CERT: z
    .string()
    .min(1)
    .optional()
    .describe('A PEM certificate file for https, with AGENT_STREAM_TLS_KEY; unset: plain http.'),
  AGENT_STREAM_TLS_KEY: z.string().min(1).optional().describe('The PEM private key file of AGENT_STREAM_TLS_CERT.'),
});

/** What followers trust the workers' delta servers with, besides the system's certificate authorities. */
export const modelStreamFollowerSchema = z.object({
  AGENT_STREAM_TLS_CA: z
    .string()
    .min(1)
    .optional()
    .describe("A PEM file of certificate authorities followers trust for workers' delta servers, besides Node's."),
});

/** A PEM certificate and its private key. */
export interface PemPair {
  cert: string | Buffer;
  key: string | Buffer;
}

/** Where the delta server listens, what URL it gives out, and whether it serves https. */
export interface ModelStreamConfig {
  host: string;
  port: number;
  publicUrl?: string;
  /** Read from AGENT_STREAM_TLS_CERT and AGENT_STREAM_TLS_KEY. */
  tls?: PemPair;
}

/**
 * Reads {@link modelStreamSchema}; empty variables count as unset. The TLS files are read here: a missing or
 * unreadable one, or one of the two set without the other, is a {@link ConfigError} naming the variable.
 */
export function loadModelStreamConfig(env: NodeJS.ProcessEnv = process.env): ModelStreamConfig {
  const values = parseEnvironment(modelStreamSchema, env);
  const { AGENT_STREAM_TLS_CERT: certPath, AGENT_STREAM_TLS_KEY: keyPath } = values;
  if ((certPath === undefined) !== (keyPath === undefined))
    throw new ConfigError(
      'Bad configuration: set AGENT_STREAM_TLS_CERT and AGENT_STREAM_TLS_KEY together (https), or neither (http).',
    );
  return {
    host: values.AGENT_STREAM_HOST,
    port: values.AGENT_STREAM_PORT,
    ...(values.AGENT_STREAM_PUBLIC_URL === undefined
      ? {}
      : { publicUrl: values.AGENT_STREAM_PUBLIC_URL.replace(/\/+$/, '') }),
    ...(certPath === undefined || keyPath === undefined
      ? {}
      : { tls: { cert: readPem('AGENT_STREAM_TLS_CERT', certPath), key: readPem('AGENT_STREAM_TLS_KEY', keyPath) } }),
  };
}

/** The certificate authorities of AGENT_STREAM_TLS_CA, read; undefined when it is unset. */
export function loadModelStreamFollowerCa(env: NodeJS.ProcessEnv = process.env): Buffer | undefined {
  const path = parseEnvironment(modelStreamFollowerSchema, env).AGENT_STREAM_TLS_CA;
  return path === undefined ? undefined : readPem('AGENT_STREAM_TLS_CA', path);
}

/** A PEM file's bytes; a file that cannot be read, or holds no PEM block, names the variable (never its content). */
function readPem(variable: string, path: string): Buffer {
  let content: Buffer;
  try {
    content = readFileSync(path);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
    throw new ConfigError(
      `Bad configuration: ${variable}=${JSON.stringify(path)}: the file cannot be read (${reason}).`,
    );
  }
  if (!content.includes('-----BEGIN '))
    throw new ConfigError(`Bad configuration: ${variable}=${JSON.stringify(path)}: the file holds no PEM block.`);
  return content;
}
