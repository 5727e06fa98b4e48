import * as otel from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { W3CPropagator } from '../../src/workflows/w3c-propagation';

/**
 * The workflow sandbox's propagators write and read the same headers as the SDK's, which the worker, the client
 * and the API use: what a run receives from a caller and sends to its activities and children is unchanged.
 */
describe("the sandbox's W3C propagators against the SDK's", () => {
  // The SDK's global propagators: W3C trace context, then baggage.
  beforeAll(() => new NodeTracerProvider().register());

  afterAll(() => {
    otel.trace.disable();
    otel.context.disable();
    otel.propagation.disable();
  });

  const ours = new W3CPropagator();

  function headersOf(propagator: otel.TextMapPropagator, context: otel.Context): Record<string, string> {
    const carrier: Record<string, string> = {};
    propagator.inject(context, carrier, otel.defaultTextMapSetter);
    return carrier;
  }

  const sdk: otel.TextMapPropagator = {
    inject: (context, carrier, setter) => otel.propagation.inject(context, carrier, setter),
    extract: (context, carrier, getter) => otel.propagation.extract(context, carrier, getter),
    fields: () => otel.propagation.fields(),
  };

  test('inject: the same traceparent, tracestate and baggage', () => {
    const span = otel.trace.wrapSpanContext({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: otel.TraceFlags.SAMPLED,
      traceState: otel.createTraceState('vendor=a1,other=b2'),
    });
    const baggage = otel.propagation.createBaggage({
      'gen_ai.conversation.id': { value: 'conversation 1, "quoted"; =' },
      plain: { value: 'x', metadata: otel.baggageEntryMetadataFromString('property=1') },
    });
    const context = otel.propagation.setBaggage(otel.trace.setSpan(otel.ROOT_CONTEXT, span), baggage);
    const written = headersOf(ours, context);
    expect(written).toEqual(headersOf(sdk, context));
    expect(Object.keys(written).sort()).toEqual(['baggage', 'traceparent', 'tracestate']);
    const unsampled = otel.trace.setSpanContext(otel.ROOT_CONTEXT, {
      ...span.spanContext(),
      traceFlags: otel.TraceFlags.NONE,
    });
    expect(headersOf(ours, unsampled)).toEqual(headersOf(sdk, unsampled));
    expect(headersOf(ours, otel.ROOT_CONTEXT)).toEqual({});
  });

  test.each([
    { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'vendor=a1' },
    { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00' },
    { traceparent: '01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-future' },
    { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra' },
    { traceparent: 'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    { traceparent: '00-00000000000000000000000000000000-b7ad6b7169203331-01' },
    { traceparent: '00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01' },
    { traceparent: 'garbage', baggage: 'a=1,b=%20two%2C;meta=1, c = 3 ,=nokey,novalue' },
    { baggage: 'broken=%E0%A4%A' },
  ])('extract %j: the same span context and baggage', (headers) => {
    const read = (propagator: otel.TextMapPropagator) => {
      const context = propagator.extract(otel.ROOT_CONTEXT, headers, otel.defaultTextMapGetter);
      const spanContext = otel.trace.getSpanContext(context);
      return {
        spanContext:
          spanContext === undefined ? undefined : { ...spanContext, traceState: spanContext.traceState?.serialize() },
        baggage: otel.propagation
          .getBaggage(context)
          ?.getAllEntries()
          .map(([key, entry]) => [key, entry.value, entry.metadata?.toString()]),
      };
    };
    expect(read(ours)).toEqual(read(sdk));
  });
});
