/**
 * Loaded only into the bundle a reader replays a closed run's history with (`src/client/run-replay.ts`), never into
 * a worker's: after each workflow task it hands the run's `state`, as its query would answer it, and the events the
 * task appended to the reader through a sink called during replay. The last call's state is the run as its history
 * left it.
 */
import * as wf from '@temporalio/workflow';
import { getActivator } from '@temporalio/workflow/lib/global-attributes';
import { WORKFLOW_TYPE } from '../shared/defaults/names';
import type { AgentState } from '../shared/agent-result';
import type { EventPage } from '../shared/run-events';
import { EventFollower, type FreshEvents } from './event-follower';

/** What one workflow task of a replayed run left: its state, and the events it appended (every kept one, first). */
export interface ReplayedTask extends FreshEvents {
  state: AgentState;
}

/** The sink a reader's replay worker provides. */
export interface ReplayReaderSinks extends wf.Sinks {
  replayReader: { snapshot(task: ReplayedTask): void };
}

const { replayReader } = wf.proxySinks<ReplayReaderSinks>();

/** Calls a query handler the run registered, as a query would; undefined before the run registered it. */
function ask<T>(name: string, ...args: unknown[]): T | undefined {
  const handler = getActivator().queryHandlers.get(name)?.handler as ((...input: unknown[]) => T) | undefined;
  return handler?.(...args);
}

class ReplayReaderInternals implements wf.WorkflowInternalsInterceptor {
  // One follower per replayed run: each task hands only the events it appended.
  private readonly events = new EventFollower((after, limit) => ask<EventPage>('events', { after, limit }));

  concludeActivation(
    input: wf.ConcludeActivationInput,
    next: wf.Next<wf.WorkflowInternalsInterceptor, 'concludeActivation'>,
  ): wf.ConcludeActivationOutput {
    const output = next(input);
    if (wf.workflowInfo().workflowType !== WORKFLOW_TYPE) return output;
    const state = ask<AgentState>('state');
    if (state !== undefined) replayReader.snapshot({ state, ...this.events.next() });
    return output;
  }
}

/** The interceptors Temporal loads from this module (`workflowInterceptorModules` of the reader's bundle). */
export const interceptors = (): wf.WorkflowInterceptors => ({ internals: [new ReplayReaderInternals()] });
