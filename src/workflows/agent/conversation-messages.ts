import { INJECTION_EVENT_TYPES, type InjectionKind } from '../../shared/run-events';
import { type ChatMessage } from '../../shared/messages';
import type { RunRecord } from './run-record';
import { appendMessages } from './run-transitions';

/** Adds a runner-authored system message, marked as injected (`meta.injected`), to the conversation, and logs it with the turn counters. */
export function inject(run: RunRecord, kind: InjectionKind, content: string): void {
  appendMessages(run, { role: 'system', content, meta: { injected: kind, iteration: run.iteration } });
  run.events.append(INJECTION_EVENT_TYPES[kind], {
    iteration: run.iteration,
    consecutiveNudges: run.consecutiveNudges,
    restrictionInjections: run.restrictionInjections,
  });
}

/** A person's message, as it joins the conversation. */
export function userMessage(content: string): ChatMessage {
  return { role: 'user', content };
}
