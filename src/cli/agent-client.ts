import type { Client, WorkflowExecutionStatusName } from '@temporalio/client';
import { connectAgentClient } from '../client/connect-agent-client';
import { loadTemporalConfig, type TemporalConfig } from '../config';
import { loadPayloadEncryption } from '../config/payload-codec';
import { RunEndedError } from '../client/run-ended-error';
import { RunNotFoundError } from '../client/run-not-found-error';
import { hasRunEnded } from '../temporal/run-ended';
import { runEndedError } from './run-ended-error';
import { loadTracingConfig } from '../config/tracing';
import { tracingForProcess } from '../tracing/process-tracing';

/**
 * Runs `work` with a client for the server of the Temporal profile and the
 * `TEMPORAL_*` variables (`loadTemporalConfig`), and the payload codec of `AGENT_CODEC_KEYS`, `AGENT_CODEC_KEY_FILE`
 * or the profile's codec endpoint, closing the connection afterwards.
 */
export async function withAgentClient<T>(work: (client: Client, config: TemporalConfig) => Promise<T>): Promise<T> {
  const config = loadTemporalConfig();
  // With OTEL_* tracing configured, a run the command starts begins its trace here (`StartWorkflow`).
  const tracing = tracingForProcess(loadTracingConfig(CLI_SERVICE_NAME));
  const client = await connectAgentClient(config, {
    dataConverter: loadPayloadEncryption(process.env, config).dataConverter,
  });
  try {
    return await work(client, config);
  } finally {
    await client.connection.close();
    await tracing?.shutdown();
  }
}

/** The `service.name` of the command's spans when `OTEL_SERVICE_NAME` is unset. */
const CLI_SERVICE_NAME = 'agent-runner-cli';

/**
 * Temporal answers a signal or update sent to a run that has ended the same
 * way as one sent to no run at all. When the run does exist, this says so
 * ({@link RunEndedError}) instead of claiming it does not.
 */
export async function explainMissingRun(client: Client, workflowId: string, error: unknown): Promise<never> {
  if (!RunNotFoundError.isInstance(error) && !RunEndedError.isInstance(error)) throw error;
  let temporalStatus: WorkflowExecutionStatusName;
  try {
    temporalStatus = (await client.workflow.getHandle(workflowId).describe()).status.name;
  } catch {
    throw error; // describe cannot find it either: it really is not there
  }
  if (!hasRunEnded(temporalStatus)) throw error;
  throw runEndedError(workflowId, temporalStatus);
}
