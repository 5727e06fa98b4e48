/**
 * The workflow sandbox's tracer: spans as plain records sent through Temporal's `exporter` sink and exported by the
 * real SDK in the worker (`makeWorkflowExporter`, `src/tracing/sdk.ts`).
 *
 * Not the OpenTelemetry SDK itself: it cannot be preloaded (its global registration writes to a frozen module) and
 * costs 3 to 4 ms a run to evaluate. Spans match `BasicTracerProvider`'s defaults (names, attributes, parents,
 * statuses, parent-based sampling); ids and times are deterministic, and the sink is not called during replay.
 */
import * as otel from '@opentelemetry/api';
import * as wf from '@temporalio/workflow';
import type { OpenTelemetrySinks, SerializableSpan } from '@temporalio/interceptors-opentelemetry/lib/workflow';

/** The SDK's default span limit on attributes; values are kept whole, as its default length limit is none. */
const ATTRIBUTE_COUNT_LIMIT = 128;

const exporter = wf.proxySinks<OpenTelemetrySinks>().exporter;

/** Span and trace ids from `wf.uuid4()`, the workflow's own deterministic randomness, as the house rules ask. */
function randomHex(digits: number): string {
  let hex = '';
  while (hex.length < digits) hex += wf.uuid4().replace(/-/g, '');
  return hex.slice(0, digits);
}

function hrTime(epochMs: number): otel.HrTime {
  const seconds = Math.floor(epochMs / 1000);
  return [seconds, Math.round((epochMs - seconds * 1000) * 1e6)];
}

function workflowNow(): number {
  // The sandbox's Date is the workflow clock (the time of the current workflow task).
  return new Date().getTime();
}

function isAttributeValue(value: unknown): value is otel.AttributeValue {
  if (value === null || value === undefined) return false;
  if (Array.isArray(value)) return value.every((item) => item === null || item === undefined || isPrimitive(item));
  return isPrimitive(value);
}

function isPrimitive(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** One span: attributes and status gathered until `end()` hands the record to the sink. */
class WorkflowSpan implements otel.Span {
  private readonly attributes: otel.Attributes = {};
  private readonly events: SerializableSpan['events'] = [];
  private readonly links: otel.Link[];
  private status: otel.SpanStatus = { code: otel.SpanStatusCode.UNSET };
  private droppedAttributesCount = 0;
  private endTime: otel.HrTime | undefined;
  private readonly startMs: number;

  constructor(
    private name: string,
    private readonly context: otel.SpanContext,
    private readonly kind: otel.SpanKind,
    private readonly parentSpanId: string | undefined,
    private readonly scope: { name: string },
    options: otel.SpanOptions,
  ) {
    this.startMs = timeInputMs(options.startTime) ?? workflowNow();
    this.links = [...(options.links ?? [])];
    if (options.attributes !== undefined) this.setAttributes(options.attributes);
  }

  spanContext(): otel.SpanContext {
    return this.context;
  }

  setAttribute(key: string, value: otel.AttributeValue): this {
    if (this.endTime !== undefined || key === '' || !isAttributeValue(value)) return this;
    if (!(key in this.attributes) && Object.keys(this.attributes).length >= ATTRIBUTE_COUNT_LIMIT) {
      this.droppedAttributesCount += 1;
      return this;
    }
    this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: otel.Attributes): this {
    for (const [key, value] of Object.entries(attributes)) if (value !== undefined) this.setAttribute(key, value);
    return this;
  }

  addEvent(name: string, attributesOrTime?: otel.Attributes | otel.TimeInput, time?: otel.TimeInput): this {
    if (this.endTime !== undefined) return this;
    const isTime =
      typeof attributesOrTime === 'number' || Array.isArray(attributesOrTime) || attributesOrTime instanceof Date;
    const attributes = isTime || attributesOrTime === undefined ? {} : (attributesOrTime as otel.Attributes);
    const at = timeInputMs(isTime ? (attributesOrTime as otel.TimeInput) : time) ?? workflowNow();
    this.events.push({ name, attributes, time: hrTime(at), droppedAttributesCount: 0 });
    return this;
  }

  addLink(link: otel.Link): this {
    this.links.push(link);
    return this;
  }

  addLinks(links: otel.Link[]): this {
    this.links.push(...links);
    return this;
  }

  setStatus(status: otel.SpanStatus): this {
    if (this.endTime !== undefined) return this;
    // As the SDK (1.x): the last status set wins; a message that is not a string is dropped.
    this.status = typeof status.message === 'string' ? { ...status } : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (this.endTime === undefined) this.name = name;
    return this;
  }

  end(endTime?: otel.TimeInput): void {
    if (this.endTime !== undefined) return;
    const endMs = Math.max(timeInputMs(endTime) ?? workflowNow(), this.startMs);
    this.endTime = hrTime(endMs);
    const { traceState, ...restOfContext } = this.context;
    exporter.export([
      {
        name: this.name,
        kind: this.kind,
        spanContext: { ...restOfContext, ...(traceState === undefined ? {} : { traceState: traceState.serialize() }) },
        ...(this.parentSpanId === undefined ? {} : { parentSpanId: this.parentSpanId }),
        startTime: hrTime(this.startMs),
        endTime: this.endTime,
        status: this.status,
        attributes: this.attributes,
        links: this.links,
        events: this.events,
        duration: hrTime(endMs - this.startMs),
        ended: true,
        droppedAttributesCount: this.droppedAttributesCount,
        droppedEventsCount: 0,
        droppedLinksCount: 0,
        instrumentationLibrary: this.scope,
      },
    ]);
  }

  isRecording(): boolean {
    return this.endTime === undefined;
  }

  recordException(exception: otel.Exception, time?: otel.TimeInput): void {
    const attributes: otel.Attributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else {
      const type = exception.code ? String(exception.code) : exception.name;
      if (type) attributes['exception.type'] = type;
      if (exception.message) attributes['exception.message'] = exception.message;
      if (exception.stack) attributes['exception.stacktrace'] = exception.stack;
    }
    // The SDK records an exception only with a type or a message.
    if (attributes['exception.type'] || attributes['exception.message']) this.addEvent('exception', attributes, time);
  }
}

function timeInputMs(time: otel.TimeInput | undefined): number | undefined {
  if (time === undefined) return undefined;
  if (typeof time === 'number') return time;
  if (time instanceof Date) return time.getTime();
  return time[0] * 1000 + time[1] / 1e6;
}

/** Starts spans under the given (or active) context's span, as the SDK's tracer does. */
class WorkflowTracer implements otel.Tracer {
  private readonly scope: { name: string };

  constructor(scopeName: string) {
    this.scope = { name: scopeName };
  }

  startSpan(name: string, options: otel.SpanOptions = {}, context: otel.Context = otel.context.active()): otel.Span {
    const parent = options.root ? undefined : otel.trace.getSpanContext(context);
    const validParent = parent !== undefined && otel.isSpanContextValid(parent) ? parent : undefined;
    const traceId = validParent?.traceId ?? randomHex(32);
    const spanId = randomHex(16);
    // The SDK's default sampler: a child of an unsampled parent records nothing; a root or sampled child is sampled.
    if (validParent !== undefined && (validParent.traceFlags & otel.TraceFlags.SAMPLED) === 0) {
      return otel.trace.wrapSpanContext({
        traceId,
        spanId,
        traceFlags: otel.TraceFlags.NONE,
        ...(validParent.traceState === undefined ? {} : { traceState: validParent.traceState }),
      });
    }
    const spanContext: otel.SpanContext = {
      traceId,
      spanId,
      traceFlags: otel.TraceFlags.SAMPLED,
      ...(validParent?.traceState === undefined ? {} : { traceState: validParent.traceState }),
    };
    return new WorkflowSpan(
      name,
      spanContext,
      options.kind ?? otel.SpanKind.INTERNAL,
      validParent?.spanId,
      this.scope,
      options,
    );
  }

  startActiveSpan<F extends (span: otel.Span) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: otel.Span) => unknown>(
    name: string,
    options: otel.SpanOptions,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: otel.Span) => unknown>(
    name: string,
    options: otel.SpanOptions,
    context: otel.Context,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: otel.Span) => unknown>(
    name: string,
    ...rest: [F] | [otel.SpanOptions, F] | [otel.SpanOptions, otel.Context, F]
  ): ReturnType<F> {
    const fn = rest[rest.length - 1] as F;
    const options = rest.length > 1 ? (rest[0] as otel.SpanOptions) : {};
    const parentContext = rest.length > 2 ? (rest[1] as otel.Context) : otel.context.active();
    const span = this.startSpan(name, options, parentContext);
    return otel.context.with(otel.trace.setSpan(parentContext, span), () => fn(span)) as ReturnType<F>;
  }
}

/** The sandbox's tracer provider: one tracer per instrumentation scope name. */
export class WorkflowTracerProvider implements otel.TracerProvider {
  private readonly tracers = new Map<string, otel.Tracer>();

  getTracer(name: string): otel.Tracer {
    let tracer = this.tracers.get(name);
    if (tracer === undefined) {
      tracer = new WorkflowTracer(name);
      this.tracers.set(name, tracer);
    }
    return tracer;
  }
}
