import type * as SdkModule from './sdk';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import type { TracingSdk } from './sdk';

/**
 * The workflow interceptor module of the agent's own spans (`invoke_agent`): `src/workflows/tracing-interceptors.ts`,
 * or its build. Bundled only by workers with tracing on.
 */
const AGENT_TRACING_INTERCEPTORS_PATH: string = require.resolve('../workflows/tracing-interceptors');

/** What a worker with tracing on adds to its options: Temporal's interceptors, the agent's, the span sink. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the worker's sinks are of any shape
export function withWorkerTracing<Options extends { interceptors?: WorkerInterceptors; sinks?: InjectedSinks<any> }>(
  options: Options,
  tracing: TracingSdk,
): Options {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require('./sdk') as typeof SdkModule;
  const added = sdk.workerTracingInterceptors([AGENT_TRACING_INTERCEPTORS_PATH]);
  const own = options.interceptors ?? {};
  return {
    ...options,
    interceptors: {
      ...own,
      // Temporal's go first: the agent's `invoke_agent` span must open inside its `RunWorkflow` span.
      workflowModules: [...(added.workflowModules ?? []), ...(own.workflowModules ?? [])],
      activity: [...(added.activity ?? []), ...(own.activity ?? [])],
    },
    sinks: { ...options.sinks, ...sdk.workflowSpanSinks(tracing) },
  };
}
