/**
 * The W3C trace context (`traceparent`, `tracestate`) and baggage (`baggage`) propagators, as
 * `@opentelemetry/core`'s, for the workflow sandbox: the headers a run receives and sends are read and written the
 * way the SDK does on every other process, without evaluating the SDK in each run
 * (`./workflow-tracer.ts` says why).
 *
 * Headers come from callers and are untrusted: a malformed `traceparent` is ignored, baggage is cut to W3C's limits.
 */
import * as otel from '@opentelemetry/api';

const TRACEPARENT = 'traceparent';
const TRACESTATE = 'tracestate';
const BAGGAGE = 'baggage';
const TRACEPARENT_PATTERN = /^\s?([\da-f]{2})-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})(-.*)?\s?$/;
/** W3C baggage's limits, as `@opentelemetry/core` applies them. */
const BAGGAGE_MAX_ENTRIES = 180;
const BAGGAGE_MAX_PAIR_BYTES = 4096;
const BAGGAGE_MAX_BYTES = 8192;

function parseTraceparent(header: string): otel.SpanContext | undefined {
  const match = TRACEPARENT_PATTERN.exec(header);
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  // Version ff is invalid; version 00 has nothing after the flags.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  const context = { traceId: traceId!, spanId: spanId!, traceFlags: parseInt(flags!, 16), isRemote: true };
  return otel.isSpanContextValid(context) ? context : undefined;
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/** `traceparent` and `tracestate`. */
class TraceContextPropagator implements otel.TextMapPropagator {
  inject(context: otel.Context, carrier: unknown, setter: otel.TextMapSetter): void {
    const spanContext = otel.trace.getSpanContext(context);
    if (spanContext === undefined || !otel.isSpanContextValid(spanContext)) return;
    const flags = (spanContext.traceFlags & otel.TraceFlags.SAMPLED).toString(16).padStart(2, '0');
    setter.set(carrier, TRACEPARENT, `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`);
    const state = spanContext.traceState?.serialize();
    if (state) setter.set(carrier, TRACESTATE, state);
  }

  extract(context: otel.Context, carrier: unknown, getter: otel.TextMapGetter): otel.Context {
    const header = firstValue(getter.get(carrier, TRACEPARENT));
    const spanContext = header === undefined ? undefined : parseTraceparent(header);
    if (spanContext === undefined) return context;
    const state = firstValue(getter.get(carrier, TRACESTATE));
    return otel.trace.setSpanContext(
      context,
      state === undefined ? spanContext : { ...spanContext, traceState: otel.createTraceState(state) },
    );
  }

  fields(): string[] {
    return [TRACEPARENT, TRACESTATE];
  }
}

/** `baggage`: `key=value` pairs, percent-encoded, with their metadata kept. */
class BaggagePropagator implements otel.TextMapPropagator {
  inject(context: otel.Context, carrier: unknown, setter: otel.TextMapSetter): void {
    const baggage = otel.propagation.getBaggage(context);
    if (baggage === undefined) return;
    const pairs: string[] = [];
    let bytes = 0;
    for (const [key, entry] of baggage.getAllEntries().slice(0, BAGGAGE_MAX_ENTRIES)) {
      const metadata = entry.metadata === undefined ? '' : `;${entry.metadata.toString()}`;
      const pair = `${encodeURIComponent(key)}=${encodeURIComponent(entry.value)}${metadata}`;
      if (pair.length > BAGGAGE_MAX_PAIR_BYTES || bytes + pair.length + 1 > BAGGAGE_MAX_BYTES) continue;
      pairs.push(pair);
      bytes += pair.length + 1;
    }
    if (pairs.length > 0) setter.set(carrier, BAGGAGE, pairs.join(','));
  }

  extract(context: otel.Context, carrier: unknown, getter: otel.TextMapGetter): otel.Context {
    const header = firstValue(getter.get(carrier, BAGGAGE));
    if (header === undefined) return context;
    const entries: Record<string, otel.BaggageEntry> = {};
    for (const pair of header.split(',').slice(0, BAGGAGE_MAX_ENTRIES)) {
      const [keyValue = '', ...metadata] = pair.split(';');
      const separator = keyValue.indexOf('=');
      if (separator <= 0) continue;
      const key = decodeSafely(keyValue.slice(0, separator).trim());
      const value = decodeSafely(keyValue.slice(separator + 1).trim());
      if (key === undefined || value === undefined) continue;
      entries[key] = {
        value,
        ...(metadata.length > 0 ? { metadata: otel.baggageEntryMetadataFromString(metadata.join(';')) } : {}),
      };
    }
    if (Object.keys(entries).length === 0) return context;
    return otel.propagation.setBaggage(context, otel.propagation.createBaggage(entries));
  }

  fields(): string[] {
    return [BAGGAGE];
  }
}

function decodeSafely(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** Both, as the SDK's `provider.register()` sets them: trace context, then baggage. */
export class W3CPropagator implements otel.TextMapPropagator {
  private readonly propagators = [new TraceContextPropagator(), new BaggagePropagator()];

  inject(context: otel.Context, carrier: unknown, setter: otel.TextMapSetter): void {
    for (const propagator of this.propagators) propagator.inject(context, carrier, setter);
  }

  extract(context: otel.Context, carrier: unknown, getter: otel.TextMapGetter): otel.Context {
    return this.propagators.reduce((extracted, propagator) => propagator.extract(extracted, carrier, getter), context);
  }

  fields(): string[] {
    return this.propagators.flatMap((propagator) => propagator.fields());
  }
}
