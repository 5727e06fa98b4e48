/**
 * Loaded only into the bundle a reader replays a closed run's history with (`src/client/run-replay.ts`), never into
 * a worker's: after each workflow task it hands the run's `state` and event log, as its queries would answer them,
 * to the reader through a sink called during replay. The last call is the run as its history left it.
 */
import * as wf from '@temporalio/workflow';
import { getActivator } from '@temporalio/workflow/lib/global-attributes';
import { MAX_EVENTS_PER_PAGE } from '../shared/defaults/event-log';
import { WORKFLOW_TYPE } from '../shared/defaults/names';
import type { AgentState } from '../shared/agent-result';
import type { EventPage, RunEvent } from '../shared/run-events';

/** What a replayed agent run was when its history ended. */
export interface ReplayedRunSnapshot {
  state: AgentState;
  events: RunEvent[];
  /** Events of the run's log that were no longer kept before the first of `events`. */
  missed: number;
}

/** The sink a reader's replay worker provides. */
export interface ReplayReaderSinks extends wf.Sinks {
  replayReader: { snapshot(snapshot: ReplayedRunSnapshot): void };
}

const { replayReader } = wf.proxySinks<ReplayReaderSinks>();

/** Calls a query handler the run registered, as a query would; undefined before the run registered it. */
function ask<T>(name: string, ...args: unknown[]): T | undefined {
  const handler = getActivator().queryHandlers.get(name)?.handler as ((...input: unknown[]) => T) | undefined;
  return handler?.(...args);
}

/** The whole event log the run keeps, page by page. */
function allEvents(): { events: RunEvent[]; missed: number } {
  const events: RunEvent[] = [];
  let missed = 0;
  for (let after = 0; ;) {
    const page = ask<EventPage>('events', { after, limit: MAX_EVENTS_PER_PAGE });
    if (page === undefined) break;
    if (after === 0) missed = page.missed ?? 0;
    events.push(...page.events);
    if (page.events.length === 0) break;
    after = page.nextCursor;
  }
  return { events, missed };
}

class ReplayReaderInternals implements wf.WorkflowInternalsInterceptor {
  concludeActivation(
    input: wf.ConcludeActivationInput,
    next: wf.Next<wf.WorkflowInternalsInterceptor, 'concludeActivation'>,
  ): wf.ConcludeActivationOutput {
    const output = next(input);
    if (wf.workflowInfo().workflowType !== WORKFLOW_TYPE) return output;
    const state = ask<AgentState>('state');
    if (state !== undefined) replayReader.snapshot({ state, ...allEvents() });
    return output;
  }
}

/** The interceptors Temporal loads from this module (`workflowInterceptorModules` of the reader's bundle). */
export const interceptors = (): wf.WorkflowInterceptors => ({ internals: [new ReplayReaderInternals()] });
