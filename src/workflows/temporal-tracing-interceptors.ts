/**
 * Temporal's workflow-side OpenTelemetry interceptors (`@temporalio/interceptors-opentelemetry`'s
 * `lib/workflow`), span for span and flag for flag, on the sandbox's own tracer (`./workflow-tracer.ts`) instead of
 * the OpenTelemetry SDK, which Temporal's module evaluates again in every run. One difference: an activity the run
 * schedules carries the trace context in its headers without a `StartActivity` span of its own, so its `RunActivity`
 * span (and the `chat` or `execute_tool` span inside it) is a child of the run's `invoke_agent`.
 *
 * No `StartActivity` span: it was most of tracing's cost per iteration, and `RunActivity` already says when each
 * activity ran. The yields and spans each SDK flag gates stay Temporal's, so every history replays as recorded.
 */
import * as otel from '@opentelemetry/api';
import {
  extractContextFromHeaders,
  headersWithContext,
  instrument,
  instrumentSync,
  NEXUS_ENDPOINT_ATTR_KEY,
  NEXUS_OPERATION_ATTR_KEY,
  NEXUS_SERVICE_ATTR_KEY,
  nexusHeadersWithContext,
  UPDATE_ID_ATTR_KEY,
} from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import { ContextManager } from '@temporalio/interceptors-opentelemetry/lib/workflow/context-manager';
import { SPAN_DELIMITER, SpanName } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions';
import * as wf from '@temporalio/workflow';
import { SdkFlags } from '@temporalio/workflow/lib/flags';
import { getActivator } from '@temporalio/workflow/lib/global-attributes';
import { headersWithActiveContext } from './trace-headers';
import { W3CPropagator } from './w3c-propagation';
import { WorkflowTracerProvider } from './workflow-tracer';

/** This run's tracing globals (the module is evaluated once per run): set when its first interceptor is made. */
let contextManager: ContextManager | undefined;
let tracer: otel.Tracer | undefined;

/** Registers the sandbox's tracer, context manager and propagators globally, as the SDK's `register()` did. */
function runTracer(): otel.Tracer {
  if (tracer === undefined) {
    contextManager = new ContextManager();
    const provider = new WorkflowTracerProvider();
    otel.trace.setGlobalTracerProvider(provider);
    otel.context.setGlobalContextManager(contextManager);
    otel.propagation.setGlobalPropagator(new W3CPropagator());
    tracer = provider.getTracer('@temporalio/interceptor-workflow');
  }
  return tracer;
}

function hasFlag(flag: (typeof SdkFlags)[keyof typeof SdkFlags]): boolean {
  return getActivator().hasFlag(flag);
}

/** Whether a history was recorded before Temporal's interceptors stopped yielding an extra time. */
function yieldsExtra(): boolean {
  return !hasFlag(SdkFlags.OpenTelemetryInterceporsAvoidsExtraYields);
}

class TracingInbound implements wf.WorkflowInboundCallsInterceptor {
  private readonly tracer = runTracer();

  async execute(
    input: wf.WorkflowExecuteInput,
    next: wf.Next<wf.WorkflowInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    const context = extractContextFromHeaders(input.headers);
    if (yieldsExtra()) await Promise.resolve();
    return await instrument({
      tracer: this.tracer,
      spanName: `${SpanName.WORKFLOW_EXECUTE}${SPAN_DELIMITER}${wf.workflowInfo().workflowType}`,
      fn: () => next(input),
      context,
      acceptableErrors: (error) => error instanceof wf.ContinueAsNew,
    });
  }

  async handleSignal(
    input: wf.SignalInput,
    next: wf.Next<wf.WorkflowInboundCallsInterceptor, 'handleSignal'>,
  ): Promise<void> {
    if (!hasFlag(SdkFlags.OpenTelemetryInterceptorsTracesInboundSignals)) return next(input);
    const context = extractContextFromHeaders(input.headers);
    if (yieldsExtra()) await Promise.resolve();
    return await instrument({
      tracer: this.tracer,
      spanName: `${SpanName.WORKFLOW_HANDLE_SIGNAL}${SPAN_DELIMITER}${input.signalName}`,
      fn: () => next(input),
      context,
    });
  }

  async handleUpdate(
    input: wf.UpdateInput,
    next: wf.Next<wf.WorkflowInboundCallsInterceptor, 'handleUpdate'>,
  ): Promise<unknown> {
    if (!hasFlag(SdkFlags.OpenTelemetryInterceptorsInstrumentsAllMethods)) return next(input);
    return await instrument({
      tracer: this.tracer,
      spanName: `${SpanName.WORKFLOW_HANDLE_UPDATE}${SPAN_DELIMITER}${input.name}`,
      fn: (span) => {
        span.setAttribute(UPDATE_ID_ATTR_KEY, input.updateId);
        return next(input);
      },
      context: extractContextFromHeaders(input.headers),
    });
  }

  validateUpdate(input: wf.UpdateInput, next: wf.Next<wf.WorkflowInboundCallsInterceptor, 'validateUpdate'>): void {
    if (!hasFlag(SdkFlags.OpenTelemetryInterceptorsInstrumentsAllMethods)) return next(input);
    instrumentSync({
      tracer: this.tracer,
      spanName: `${SpanName.WORKFLOW_VALIDATE_UPDATE}${SPAN_DELIMITER}${input.name}`,
      fn: (span) => {
        span.setAttribute(UPDATE_ID_ATTR_KEY, input.updateId);
        return next(input);
      },
      context: extractContextFromHeaders(input.headers),
    });
  }

  async handleQuery(
    input: wf.QueryInput,
    next: wf.Next<wf.WorkflowInboundCallsInterceptor, 'handleQuery'>,
  ): Promise<unknown> {
    if (!hasFlag(SdkFlags.OpenTelemetryInterceptorsInstrumentsAllMethods)) return next(input);
    return await instrument({
      tracer: this.tracer,
      spanName: `${SpanName.WORKFLOW_HANDLE_QUERY}${SPAN_DELIMITER}${input.queryName}`,
      fn: () => next(input),
      context: extractContextFromHeaders(input.headers),
    });
  }
}

class TracingOutbound implements wf.WorkflowOutboundCallsInterceptor {
  private readonly tracer = runTracer();

  /** Temporal's span around a scheduling call, with the trace context (of that span) in the call's headers. */
  private async startSpan<Input extends { headers: wf.Headers }, Output>(
    spanName: string,
    input: Input,
    next: (input: Input) => Promise<Output>,
    acceptableErrors?: (error: unknown) => boolean,
  ): Promise<Output> {
    return await instrument({
      tracer: this.tracer,
      spanName,
      fn: async () => {
        const headers = headersWithContext(input.headers);
        if (yieldsExtra()) await Promise.resolve();
        return next({ ...input, headers });
      },
      ...(acceptableErrors === undefined ? {} : { acceptableErrors }),
    });
  }

  scheduleActivity(
    input: wf.ActivityInput,
    next: wf.Next<wf.WorkflowOutboundCallsInterceptor, 'scheduleActivity'>,
  ): Promise<unknown> {
    if (yieldsExtra())
      return this.startSpan(`${SpanName.ACTIVITY_START}${SPAN_DELIMITER}${input.activityType}`, input, next);
    return next({ ...input, headers: headersWithActiveContext(input.headers) });
  }

  scheduleLocalActivity(
    input: wf.LocalActivityInput,
    next: wf.Next<wf.WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>,
  ): Promise<unknown> {
    if (!hasFlag(SdkFlags.OpenTelemetryInterceptorsTracesLocalActivities)) return next(input);
    if (yieldsExtra())
      return this.startSpan(`${SpanName.ACTIVITY_START}${SPAN_DELIMITER}${input.activityType}`, input, next);
    return next({ ...input, headers: headersWithActiveContext(input.headers) });
  }

  async startNexusOperation(
    input: wf.StartNexusOperationInput,
    next: wf.Next<wf.WorkflowOutboundCallsInterceptor, 'startNexusOperation'>,
  ): Promise<wf.StartNexusOperationOutput> {
    if (!hasFlag(SdkFlags.OpenTelemetryInterceptorsInstrumentsAllMethods)) return next(input);
    return await instrument({
      tracer: this.tracer,
      spanName: `${SpanName.NEXUS_OPERATION_START}${SPAN_DELIMITER}${input.service}/${input.operation}`,
      fn: async (span) => {
        span.setAttribute(NEXUS_SERVICE_ATTR_KEY, input.service);
        span.setAttribute(NEXUS_OPERATION_ATTR_KEY, input.operation);
        span.setAttribute(NEXUS_ENDPOINT_ATTR_KEY, input.endpoint);
        return await next({ ...input, headers: nexusHeadersWithContext(input.headers) });
      },
    });
  }

  startChildWorkflowExecution(
    input: wf.StartChildWorkflowExecutionInput,
    next: wf.Next<wf.WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ): Promise<[Promise<string>, Promise<unknown>]> {
    return this.startSpan(`${SpanName.CHILD_WORKFLOW_START}${SPAN_DELIMITER}${input.workflowType}`, input, next);
  }

  continueAsNew(
    input: wf.ContinueAsNewInput,
    next: wf.Next<wf.WorkflowOutboundCallsInterceptor, 'continueAsNew'>,
  ): Promise<never> {
    return this.startSpan(
      `${SpanName.CONTINUE_AS_NEW}${SPAN_DELIMITER}${input.options.workflowType}`,
      input,
      next,
      (error) => error instanceof wf.ContinueAsNew,
    );
  }

  signalWorkflow(
    input: wf.SignalWorkflowInput,
    next: wf.Next<wf.WorkflowOutboundCallsInterceptor, 'signalWorkflow'>,
  ): Promise<void> {
    return this.startSpan(`${SpanName.WORKFLOW_SIGNAL}${SPAN_DELIMITER}${input.signalName}`, input, next);
  }

  getLogAttributes(
    input: wf.GetLogAttributesInput,
    next: wf.Next<wf.WorkflowOutboundCallsInterceptor, 'getLogAttributes'>,
  ): Record<string, unknown> {
    const spanContext = otel.trace.getSpan(otel.context.active())?.spanContext();
    if (spanContext === undefined || !otel.isSpanContextValid(spanContext)) return next(input);
    return next({
      trace_id: spanContext.traceId,
      span_id: spanContext.spanId,
      trace_flags: `0${spanContext.traceFlags.toString(16)}`,
      ...input,
    });
  }
}

class TracingInternals implements wf.WorkflowInternalsInterceptor {
  dispose(input: wf.DisposeInput, next: wf.Next<wf.WorkflowInternalsInterceptor, 'dispose'>): void {
    contextManager?.disable();
    next(input);
  }
}

/** The interceptors Temporal loads from this module (`interceptors.workflowModules`), in place of its own module's. */
export const interceptors = (): wf.WorkflowInterceptors => ({
  inbound: [new TracingInbound()],
  outbound: [new TracingOutbound()],
  internals: [new TracingInternals()],
});
