/**
 * Temporal's workflow-side OpenTelemetry interceptors (`@temporalio/interceptors-opentelemetry`), except that an
 * activity the run schedules carries the trace context in its headers without a `StartActivity` span of its own:
 * its `RunActivity` span (and so the `chat` or `execute_tool` span inside it) is a child of the span that scheduled
 * it, the run's `invoke_agent`. Everything else (the `RunWorkflow`, signal, update, child-workflow and
 * continue-as-new spans) is Temporal's own.
 *
 * Why: a workflow span costs the worker a stack trace for each of the ten or so promises Temporal's wrapper creates
 * and a sink call carrying the whole workflow info when it ends; with two activities an iteration those spans were
 * nearly all of what tracing cost a run whose model answers at once, and the worker's `RunActivity` span already says
 * when each activity ran.
 *
 * The trace header is encoded once per context (`./trace-headers.ts`): a run's loop schedules all its activities from
 * the same one.
 *
 * A history recorded by an SDK whose interceptor yielded once more before scheduling (the
 * `OpenTelemetryInterceporsAvoidsExtraYields` flag unset) takes Temporal's own path, so it replays as recorded.
 */
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type * as wf from '@temporalio/workflow';
import { SdkFlags } from '@temporalio/workflow/lib/flags';
import { getActivator } from '@temporalio/workflow/lib/global-attributes';
import { headersWithActiveContext } from './trace-headers';

class ActivityContextOutbound extends OpenTelemetryOutboundInterceptor {
  override scheduleActivity(
    input: wf.ActivityInput,
    next: wf.Next<wf.WorkflowOutboundCallsInterceptor, 'scheduleActivity'>,
  ): Promise<unknown> {
    if (!getActivator().hasFlag(SdkFlags.OpenTelemetryInterceporsAvoidsExtraYields))
      return super.scheduleActivity(input, next);
    return next({ ...input, headers: headersWithActiveContext(input.headers) });
  }

  override scheduleLocalActivity(
    input: wf.LocalActivityInput,
    next: wf.Next<wf.WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>,
  ): Promise<unknown> {
    const activator = getActivator();
    if (
      !activator.hasFlag(SdkFlags.OpenTelemetryInterceptorsTracesLocalActivities) ||
      !activator.hasFlag(SdkFlags.OpenTelemetryInterceporsAvoidsExtraYields)
    )
      return super.scheduleLocalActivity(input, next);
    return next({ ...input, headers: headersWithActiveContext(input.headers) });
  }
}

/** The interceptors Temporal loads from this module (`interceptors.workflowModules`), in place of its own module's. */
export const interceptors = (): wf.WorkflowInterceptors => ({
  inbound: [new OpenTelemetryInboundInterceptor()],
  outbound: [new ActivityContextOutbound()],
  internals: [new OpenTelemetryInternalsInterceptor()],
});
