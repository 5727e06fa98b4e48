import type { ChatMessage } from '../../shared';
import type { RunRecord } from './run-record';

/** What an injected system message is marked as in `meta.injected`, and the event its injection logs. */
export type InjectedKind = 'nudge' | 'restriction' | 'loop_warning' | 'error_context';

/** Adds a runner-authored system message, marked as injected, to the conversation, and logs it with the turn counters. */
export function inject(run: RunRecord, kind: InjectedKind, content: string): void {
  run.messages.push({ role: 'system', content, meta: { injected: kind, iteration: run.iteration } });
  run.events.append(kind, { iteration: run.iteration, consecutiveNudges: run.consecutiveNudges, restrictionInjections: run.restrictionInjections });
}

/** A person's message, as it joins the conversation. */
export function userMessage(content: string): ChatMessage {
  return { role: 'user', content };
}
