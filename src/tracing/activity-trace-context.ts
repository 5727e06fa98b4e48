import * as otel from '@opentelemetry/api';
import { CompleteAsyncError, defaultPayloadConverter, type Headers } from '@temporalio/common';
import {
  ACTIVITY_ID_ATTR_KEY,
  RUN_ID_ATTR_KEY,
  TRACE_HEADER,
  WORKFLOW_ID_ATTR_KEY,
  instrument,
} from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import {
  OpenTelemetryActivityInboundInterceptor,
  SpanName,
  SPAN_DELIMITER,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';

/**
 * Temporal's `RunActivity` span, with the trace context of the activity's headers decoded once per header: a run's
 * activities all carry the same one (its `invoke_agent` span's), and decoding it (the JSON payload, then the
 * traceparent and baggage propagators) is most of what the interceptor costs beside the span.
 */
export class CachedContextActivityInbound extends OpenTelemetryActivityInboundInterceptor {
  override async execute(
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    const info = this.ctx.info;
    return await instrument({
      tracer: this.tracer,
      spanName: `${SpanName.ACTIVITY_EXECUTE}${SPAN_DELIMITER}${info.activityType}`,
      fn: (span) => {
        span.setAttribute(ACTIVITY_ID_ATTR_KEY, info.activityId);
        if (info.inWorkflow && info.workflowExecution !== undefined) {
          span.setAttribute(WORKFLOW_ID_ATTR_KEY, info.workflowExecution.workflowId);
          span.setAttribute(RUN_ID_ATTR_KEY, info.workflowExecution.runId);
        }
        return next(input);
      },
      context: contextFromHeaders(input.headers),
      acceptableErrors: (error) => error instanceof CompleteAsyncError,
    });
  }
}

/** How many decoded trace headers are kept: the runs a worker has in flight at once, with room to spare. */
const KEPT_CONTEXTS = 256;

/** Decoded contexts by their header's bytes; emptied when full (a worker's runs in flight refill it at once). */
const contexts = new Map<string, otel.Context>();

/** The context the activity's trace header carries, as Temporal's `extractContextFromHeaders` reads it. */
export function contextFromHeaders(headers: Headers): otel.Context | undefined {
  const payload = headers[TRACE_HEADER];
  if (payload === undefined) return undefined;
  const active = otel.context.active();
  // Extraction starts from the active context: only one started from the root is the same for every activity.
  if (active !== otel.ROOT_CONTEXT || payload.data === undefined || payload.data === null)
    return extract(active, payload);
  const key = Buffer.from(payload.data.buffer, payload.data.byteOffset, payload.data.byteLength).toString('latin1');
  let context = contexts.get(key);
  if (context === undefined) {
    if (contexts.size >= KEPT_CONTEXTS) contexts.clear();
    context = extract(active, payload);
    contexts.set(key, context);
  }
  return context;
}

function extract(active: otel.Context, payload: NonNullable<Headers[string]>): otel.Context {
  const carrier = defaultPayloadConverter.fromPayload<Record<string, string>>(payload);
  return otel.propagation.extract(active, carrier, otel.defaultTextMapGetter);
}
