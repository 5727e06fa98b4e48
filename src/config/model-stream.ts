import { z } from 'zod';
import { MODEL_STREAM_DEFAULTS } from '../shared/defaults/model-stream';
import { parseEnvironment } from './environment';

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
    .describe('The base URL followers use, when it differs from the bound address (a container, a proxy).'),
});

/** Where the delta server listens and what URL it gives out. */
export interface ModelStreamConfig {
  host: string;
  port: number;
  publicUrl?: string;
}

/** Reads {@link modelStreamSchema}; empty variables count as unset. */
export function loadModelStreamConfig(env: NodeJS.ProcessEnv = process.env): ModelStreamConfig {
  const values = parseEnvironment(modelStreamSchema, env);
  return {
    host: values.AGENT_STREAM_HOST,
    port: values.AGENT_STREAM_PORT,
    ...(values.AGENT_STREAM_PUBLIC_URL === undefined
      ? {}
      : { publicUrl: values.AGENT_STREAM_PUBLIC_URL.replace(/\/+$/, '') }),
  };
}
