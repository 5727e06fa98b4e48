import type * as ClientModule from '@temporalio/interceptors-opentelemetry/lib/client';
import type { WorkflowClientInterceptor } from '@temporalio/client';

/**
 * Temporal's OpenTelemetry client interceptor: a `StartWorkflow` span under the caller's active span, and the trace
 * context in the run's headers. Loaded on first use only (it brings `@opentelemetry/api`, nothing of the SDK).
 */
export function clientTracingInterceptor(): WorkflowClientInterceptor {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const client = require('@temporalio/interceptors-opentelemetry/lib/client') as typeof ClientModule;
  return new client.OpenTelemetryWorkflowClientInterceptor();
}
