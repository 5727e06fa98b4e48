/**
 * The trace header payload Temporal's `headersWithContext` builds, kept per context: a run schedules its activities
 * from one context, so each after the first reuses it instead of running the propagators again.
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
