/**
 * The trace context an activity's headers carry, encoded once per context: the payload Temporal's
 * `headersWithContext` builds (the W3C `traceparent` and `baggage` of the active context, as a JSON payload under
 * `_tracer-data`), kept for the context it was built from. A run schedules every activity of its loop from the
 * same context (its `invoke_agent` span's), so each activity after the first reuses the payload instead of running
 * the propagators and the payload converter again.
 */
import * as otel from '@opentelemetry/api';
import { TRACE_HEADER } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import type { Headers, Payload } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/workflow';

/** Contexts are immutable, so a payload built from one stays right for it; a context no longer used is collected. */
const payloads = new WeakMap<otel.Context, Payload>();

/** `headers` with the active context's trace header, built as Temporal's `headersWithContext` builds it. */
export function headersWithActiveContext(headers: Headers): Headers {
  const active = otel.context.active();
  let payload = payloads.get(active);
  if (payload === undefined) {
    const carrier: Record<string, string> = {};
    otel.propagation.inject(active, carrier, otel.defaultTextMapSetter);
    payload = defaultPayloadConverter.toPayload(carrier);
    payloads.set(active, payload);
  }
  return { ...headers, [TRACE_HEADER]: payload };
}
