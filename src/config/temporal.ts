import { z } from 'zod';
import { DEFAULT_NAMESPACE, DEFAULT_TASK_QUEUE, DEFAULT_TEMPORAL_ADDRESS } from '../shared/defaults/names';
import { ConfigError, hostPort, parseEnvironment } from './environment';

/** The Temporal connection of a process that joins a deployment: the worker, the API alone, the CLI. */
export const temporalSchema = z.object({
  TEMPORAL_ADDRESS: hostPort.default(DEFAULT_TEMPORAL_ADDRESS).describe('The Temporal frontend, host:port.'),
  TEMPORAL_NAMESPACE: z.string().min(1).default(DEFAULT_NAMESPACE).describe('The Temporal namespace runs live in.'),
  AGENT_TASK_QUEUE: taskQueue(),
  TEMPORAL_API_KEY: z
    .string()
    .min(1)
    .optional()
    .describe('An API key for Temporal Cloud; sent as a bearer token, with TLS.'),
  TEMPORAL_TLS_CERT: z
    .string()
    .min(1)
    .optional()
    .describe('Path of the client certificate for mTLS; set with TEMPORAL_TLS_KEY.'),
  TEMPORAL_TLS_KEY: z
    .string()
    .min(1)
    .optional()
    .describe('Path of the client key for mTLS; set with TEMPORAL_TLS_CERT.'),
});

/** The task queue alone: what `AgentClient` and `startAgentRun` use when their caller names none. */
export const clientSchema = z.object({ AGENT_TASK_QUEUE: taskQueue() });

export type TemporalConfig = {
  address: string;
  namespace: string;
  taskQueue: string;
  apiKey?: string;
  tls?: { certPath: string; keyPath: string };
};

/** Reads the Temporal connection settings; empty variables count as unset. */
export function loadTemporalConfig(env: NodeJS.ProcessEnv = process.env): TemporalConfig {
  const values = parseEnvironment(temporalSchema, env);
  if ((values.TEMPORAL_TLS_CERT === undefined) !== (values.TEMPORAL_TLS_KEY === undefined)) {
    throw new ConfigError('Set both TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY for mTLS, or neither.');
  }
  return {
    address: values.TEMPORAL_ADDRESS,
    namespace: values.TEMPORAL_NAMESPACE,
    taskQueue: values.AGENT_TASK_QUEUE,
    ...(values.TEMPORAL_API_KEY === undefined ? {} : { apiKey: values.TEMPORAL_API_KEY }),
    ...(values.TEMPORAL_TLS_CERT !== undefined && values.TEMPORAL_TLS_KEY !== undefined
      ? { tls: { certPath: values.TEMPORAL_TLS_CERT, keyPath: values.TEMPORAL_TLS_KEY } }
      : {}),
  };
}

/** `AGENT_TASK_QUEUE`, for a client whose caller names no task queue. */
export function loadClientTaskQueue(env: NodeJS.ProcessEnv = process.env): string {
  return parseEnvironment(clientSchema, env).AGENT_TASK_QUEUE;
}

function taskQueue() {
  return z.string().min(1).default(DEFAULT_TASK_QUEUE).describe('The task queue workers poll and runs start on.');
}
