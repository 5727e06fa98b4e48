import * as otel from '@opentelemetry/api';
import type { onRequestHookHandler } from 'fastify';

/**
 * A Fastify `onRequest` hook that makes the request's W3C `traceparent` (and `tracestate`, `baggage`) the active
 * OpenTelemetry context for the rest of the request, so a run it starts is a child of the caller's span. A missing
 * or malformed `traceparent` is ignored: the run starts a trace of its own.
 */
export function traceContextHook(): onRequestHookHandler {
  return (request, _reply, done) => {
    const parent = otel.propagation.extract(otel.ROOT_CONTEXT, request.headers);
    otel.context.with(parent, done);
  };
}
