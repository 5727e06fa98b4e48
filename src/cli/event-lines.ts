import type { RunEvent } from '../shared';
import { oneLine } from '../one-line';
import { answerCommand, approveCommand, denyCommand } from './steering-commands';

/**
 * A run's events as a person reads them: one or a few lines each, indented
 * under the iteration they belong to. Approval requests carry the exact
 * commands that decide them, since that is what the operator must do next.
 * `run-end` prints nothing: the outcome summary that follows says it better.
 */
export function describeEvent(event: RunEvent, workflowId: string): string[] {
  const describe = DESCRIBERS[event.type];
  if (describe !== undefined) return describe(event, workflowId);
  const details = Object.fromEntries(Object.entries(event).filter(([key]) => !['seq', 'at', 'type'].includes(key)));
  return [`  ${event.type} ${oneLine(details)}`];
}

type Describer = (event: RunEvent, workflowId: string) => string[];

const DESCRIBERS: Record<string, Describer> = {
  'run-start': (event) => [`Run started with tools ${list(event.tools)}${event.model ? ` on model ${String(event.model)}` : ''}.`],
  'iteration-start': (event) => [`[iteration ${num(event.iteration)}] calling the model…`],
  'model-response': (event) => (event.content === undefined ? [] : [`  model: ${oneLine(event.content)}`]),
  'tool-call-start': (event) => [`  → ${str(event.toolName)} ${oneLine(event.arguments)}`],
  'tool-call-end': (event) =>
    [`  ${event.isError ? '✗' : '←'} ${str(event.toolName)} (${num(event.durationMs)} ms): ${oneLine(event.output)}`],
  'tool-result-processed': (event) => [`  (${str(event.toolName)}'s result was cut before the model saw it)`],
  'approval-request': (event, workflowId) => [
    `  ? ${str(event.toolName)} ${oneLine(event.arguments)} needs approval (call ${str(event.callId)}). Decide from another terminal:`,
    `      ${approveCommand(workflowId, str(event.callId))}`,
    `      ${denyCommand(workflowId, str(event.callId))}`,
  ],
  'approval-decision': (event) => [describeDecision(event)],
  'approval-abandon': (event) => [`  approval of ${str(event.toolName)} (call ${str(event.callId)}) abandoned: the run is stopping`],
  'decision-rejected': (event) => [`  a decision sent by ${str(event.via)} was rejected: ${str(event.problem)}`],
  nudge: (event) => [`  nudge: the model answered without calling a terminating tool (${num(event.consecutiveNudges)} in a row)`],
  restriction: () => ['  restriction: the model must call a tool before it may finish'],
  loop_warning: () => ['  loop warning sent to the model'],
  error_context: (event) => [`  the model answered without calling a tool; told to call one (${num(event.consecutiveNudges)} in a row)`],
  'loop-detected': (event) => [`  loop detected: ${str(event.toolName)} called ${num(event.count)} times in a row (${str(event.action)})`],
  'circuit-breaker': (event) => [`  circuit breaker: ${str(event.toolName)} failed ${num(event.count)} times in a row: ${oneLine(event.errorText)}`],
  'stop-condition': (event) => [`  stop condition met: ${str(event.condition)} (${oneLine(event.detail)})`],
  'observations-masked': (event) => [`  old tool results masked, ${num(event.tokensSaved)} tokens saved`],
  timeout: (event) => [`  the run's timeout (${str(event.limit)}) passed: stopping`],
  'terminate-request': (event) => [`  terminate requested${event.reason ? `: ${oneLine(event.reason)}` : ''}`],
  'stop-request': (event) => [`  stop requested${event.reason ? `: ${oneLine(event.reason)}` : ''}`],
  'user-message': (event) => [`  user: ${oneLine(event.content)}`],
  'user-message-rejected': (event) => [`  a user message was rejected: ${str(event.reason)}`],
  'input-request': (event, workflowId) => [
    `  ? the model asks: ${oneLine(event.question)}. Answer from another terminal:`,
    `      ${answerCommand(workflowId)}`,
  ],
  'input-timeout': (event) => [`  no answer within ${str(event.limit)}`],
  'limits-change': (event) => [`  limits changed to ${oneLine(event.after)}`],
  'run-end': () => [],
};

function describeDecision(event: RunEvent): string {
  const approved = event.decision === 'approve';
  const changed = approved && event.originalArguments !== undefined ? ` with arguments ${oneLine(event.arguments)}` : '';
  const reason = event.reason ? `: ${oneLine(event.reason)}` : '';
  const via = event.via === 'timeout' ? ' (no decision in time)' : ` (by ${str(event.via)})`;
  return `  ${approved ? '✓ approved' : '✗ denied'} ${str(event.toolName)} (call ${str(event.callId)})${changed}${reason}${via}`;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : oneLine(value);
}

function num(value: unknown): string {
  return typeof value === 'number' ? String(value) : '?';
}

function list(value: unknown): string {
  return Array.isArray(value) && value.length > 0 ? value.join(', ') : 'none';
}
