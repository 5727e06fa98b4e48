import * as otel from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  TRACE_HEADER,
  extractContextFromHeaders,
  headersWithContext,
} from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import { contextFromHeaders } from '../../src/tracing/activity-trace-context';
import { headersWithActiveContext } from '../../src/workflows/trace-headers';

/**
 * An activity's trace header is built once per context in the workflow and decoded once per header in the worker,
 * and both give exactly what Temporal's own `headersWithContext` and `extractContextFromHeaders` give.
 */
describe('the trace header of an activity, built and read once', () => {
  // What the worker's SDK registers: AsyncLocalStorage contexts, the W3C trace context and baggage propagators.
  beforeAll(() => new NodeTracerProvider().register());

  afterAll(() => {
    otel.trace.disable();
    otel.context.disable();
    otel.propagation.disable();
  });

  function spanContext(traceId: string, spanId: string): otel.Context {
    const span = otel.trace.wrapSpanContext({ traceId, spanId, traceFlags: otel.TraceFlags.SAMPLED });
    const baggage = otel.propagation.createBaggage({ 'gen_ai.conversation.id': { value: 'conversation-1' } });
    return otel.propagation.setBaggage(otel.trace.setSpan(otel.ROOT_CONTEXT, span), baggage);
  }

  const first = spanContext('0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331');
  const second = spanContext('0af7651916cd43dd8448eb211c80319c', '00f067aa0ba902b7');

  test("the workflow side's header is Temporal's, one payload per context", () => {
    const [a, b, c] = otel.context.with(first, () => [
      headersWithActiveContext({}),
      headersWithActiveContext({ other: { data: new Uint8Array([1]) } }),
      headersWithContext({}),
    ]);
    expect(a![TRACE_HEADER]).toEqual(c![TRACE_HEADER]);
    expect(b![TRACE_HEADER]).toBe(a![TRACE_HEADER]);
    expect(Object.keys(b!).sort()).toEqual(['_tracer-data', 'other']);
    const other = otel.context.with(second, () => headersWithActiveContext({}));
    expect(other[TRACE_HEADER]).not.toEqual(a![TRACE_HEADER]);
    expect(other[TRACE_HEADER]).toEqual(otel.context.with(second, () => headersWithContext({}))[TRACE_HEADER]);
  });

  test("the worker side's context is Temporal's, decoded once per header", () => {
    const headers = otel.context.with(first, () => headersWithContext({}));
    const decoded = contextFromHeaders(headers)!;
    const expected = extractContextFromHeaders(headers)!;
    expect(otel.trace.getSpanContext(decoded)).toEqual(otel.trace.getSpanContext(expected));
    expect(otel.trace.getSpanContext(decoded)?.spanId).toBe('b7ad6b7169203331');
    expect(otel.propagation.getBaggage(decoded)?.getEntry('gen_ai.conversation.id')?.value).toBe('conversation-1');
    // The same bytes in another header object: the same decoded context.
    const copy = { [TRACE_HEADER]: { ...headers[TRACE_HEADER]!, data: new Uint8Array(headers[TRACE_HEADER]!.data!) } };
    expect(contextFromHeaders(copy)).toBe(decoded);
    const secondHeaders = otel.context.with(second, () => headersWithContext({}));
    expect(otel.trace.getSpanContext(contextFromHeaders(secondHeaders)!)?.spanId).toBe('00f067aa0ba902b7');
    expect(contextFromHeaders({})).toBeUndefined();
  });

  test('decoded from the active context, not the cache, when that is not the root', () => {
    const headers = otel.context.with(first, () => headersWithContext({}));
    const marker = otel.createContextKey('marker');
    const decoded = otel.context.with(otel.ROOT_CONTEXT.setValue(marker, 'kept'), () => contextFromHeaders(headers))!;
    expect(decoded.getValue(marker)).toBe('kept');
    expect(otel.trace.getSpanContext(decoded)?.spanId).toBe('b7ad6b7169203331');
  });
});
