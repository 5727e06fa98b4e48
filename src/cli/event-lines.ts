import { isRunEvent, type RunEvent, type UnknownRunEvent } from '../shared/run-events';
import { type ApprovalDecision } from '../shared/control';
import { oneLine } from './one-line';
import { answerCommand, approveCommand, denyCommand, elicitationAnswerCommand } from './steering-commands';

/**
 * A run's events as a person reads them, indented under their iteration. Approval requests carry the commands that
 * decide them; `run-end` prints nothing (the summary says it); an unknown event prints its type and fields.
 */
export function describeEvent(event: RunEvent | UnknownRunEvent, workflowId: string): string[] {
  return isRunEvent(event) ? describeRunEvent(event, workflowId) : describeGenerically(event);
}

function describeRunEvent(event: RunEvent, workflowId: string): string[] {
  switch (event.type) {
    case 'run-start':
      return [
        `Run started with tools ${event.tools.length > 0 ? event.tools.join(', ') : 'none'}${event.model ? ` on model ${event.model}` : ''}.`,
      ];
    case 'iteration-start':
      return [`[iteration ${event.iteration}] calling the model…`];
    case 'model-response':
      return [
        ...(event.content === undefined ? [] : [`  model: ${oneLine(event.content)}`]),
        ...(event.truncated === true ? ['  (the answer was cut by the output token limit)'] : []),
      ];
    case 'tool-call-start':
      return [`  → ${event.toolName} ${oneLine(event.argumentsText ?? event.arguments)}`];
    case 'tool-call-end':
      return [`  ${event.isError ? '✗' : '←'} ${event.toolName} (${event.durationMs} ms): ${oneLine(event.output)}`];
    case 'nested-agent-start':
      return [`  ⤷ nested agent ${event.toolName} started at depth ${event.depth}: workflow ${event.workflowId}`];
    case 'nested-agent-end':
      return [
        `  ⤶ nested agent ${event.toolName} ${event.outcome}${event.error === undefined ? '' : ` (${event.error.type})`}, ${event.usage.totalTokens} tokens`,
      ];
    case 'tool-result-truncation':
      return [`  (${event.toolName}'s result was cut before the model saw it)`];
    case 'tool-result-extraction':
      return [
        `  (${event.toolName}'s result was condensed for the model: about ${event.originalTokens} → ${event.extractedTokens} tokens)`,
      ];
    case 'tool-result-extraction-failure':
      return [
        `  (${event.toolName}'s result could not be condensed and goes to the model whole: ${oneLine(event.reason)})`,
      ];
    case 'tool-result-caching':
      return [`  (${event.toolName}'s result was cached as ${event.ref}; the model sees a summary)`];
    case 'approval-request':
      return [
        `  ? ${event.toolName} ${oneLine(event.arguments)} needs approval (call ${event.callId}). Decide from another terminal:`,
        `      ${approveCommand(workflowId, event.callId)}`,
        `      ${denyCommand(workflowId, event.callId)}`,
      ];
    case 'approval-decision':
      return [describeDecision(event)];
    case 'approval-abandonment':
      return [`  approval of ${event.toolName} (call ${event.callId}) abandoned: the run is stopping`];
    case 'nested-approval-forward':
      return [`  decision (${event.decision}) on ${event.callId} forwarded to the nested agent ${event.workflowId}`];
    case 'decision-rejection':
      return [`  a decision sent by ${event.via} was rejected: ${event.problem}`];
    case 'nudge-injection':
      return [`  nudge: the model answered without calling a terminating tool (${event.consecutiveNudges} in a row)`];
    case 'restriction-injection':
      return ['  restriction: the model must call a tool before it may finish'];
    case 'loop-warning-injection':
      return ['  loop warning sent to the model'];
    case 'error-context-injection':
      return [`  the model answered without calling a tool; told to call one (${event.consecutiveNudges} in a row)`];
    case 'continuation-injection':
      return ['  the answer was cut by the output token limit; the model is asked to continue it'];
    case 'loop-detection':
      return [`  loop detected: ${event.toolName} called ${event.count} times in a row (${event.action})`];
    case 'circuit-breaker-trip':
      return [`  circuit breaker: ${event.toolName} failed ${event.count} times in a row: ${oneLine(event.errorText)}`];
    case 'output-rejection':
      return [
        `  answer not valid against the output schema (${event.corrections} so far), sent back: ${oneLine(event.problems.join('; '))}`,
      ];
    case 'stop-condition-match':
      return [`  stop condition met: ${event.condition} (${oneLine(event.detail)})`];
    case 'observation-masking':
      return [`  old tool results masked, ${event.tokensSaved} tokens saved`];
    case 'context-release':
      return [
        `  the model released iterations ${event.released.join(', ') || 'none'} for masking${event.ignored > 0 ? ` (${event.ignored} ignored)` : ''}`,
      ];
    case 'compaction':
      return [
        `  conversation compacted: ${event.messagesSummarised} messages summarised, about ${event.tokensBefore} → ${event.tokensAfter} tokens`,
      ];
    case 'run-timeout':
      return [`  the run's timeout (${event.limit}) passed: stopping`];
    case 'terminate-request':
      return [`  terminate requested${event.reason ? `: ${oneLine(event.reason)}` : ''}`];
    case 'stop-request':
      return [`  stop requested${event.reason ? `: ${oneLine(event.reason)}` : ''}`];
    case 'user-message':
      return [`  user: ${oneLine(event.content)}`];
    case 'user-message-rejection':
      return [`  a user message was rejected: ${event.reason}`];
    case 'input-request':
      return [
        `  ? ${event.server === undefined ? 'the model asks: ' : ''}${oneLine(event.question)}. Answer from another terminal:`,
        `      ${event.server === undefined || event.elicitationId === undefined ? answerCommand(workflowId) : elicitationAnswerCommand(workflowId, event.elicitationId)}`,
      ];
    case 'mcp-elicitation-end':
      if (event.outcome !== 'answered') return [`  the MCP server's question of ${event.callId} was ${event.outcome}`];
      return event.action === undefined
        ? []
        : [
            `  the MCP server's question ${event.elicitationId} was answered: ${event.action}${event.by?.name === undefined ? '' : ` by ${event.by.name}`}`,
          ];
    case 'mcp-sampling':
      return [
        `  MCP server "${event.server}" sampled ${event.model} during ${event.callId}: ${event.usage.totalTokens} tokens, counted in the run`,
      ];
    case 'input-timeout':
      return [`  no answer within ${event.limit}`];
    case 'limits-change':
      return [`  limits changed to ${oneLine(event.after)}`];
    case 'run-hand-over':
    case 'run-take-over':
      // A continue-as-new is Temporal's business more than the operator's: its fields say enough.
      return describeGenerically(event);
    case 'run-end':
      return [];
    default:
      // Exhaustive: a new event type fails to compile here until it has its lines.
      return describeGenerically(event satisfies never);
  }
}

/** An event as its type and its fields, on one line: how an event this version does not know is printed. */
function describeGenerically(event: UnknownRunEvent): string[] {
  const details = Object.fromEntries(Object.entries(event).filter(([key]) => !['seq', 'at', 'type'].includes(key)));
  return [`  ${event.type} ${oneLine(details)}`];
}

function describeDecision(event: ApprovalDecision): string {
  const approved = event.decision === 'approve';
  const changed =
    approved && event.originalArguments !== undefined ? ` with arguments ${oneLine(event.arguments)}` : '';
  const reason = event.reason ? `: ${oneLine(event.reason)}` : '';
  const via =
    event.via === 'timeout'
      ? ' (no decision in time)'
      : event.by?.name === undefined
        ? ` (by ${event.by?.via ?? event.via})`
        : ` (by ${event.by.name}, ${event.by.via})`;
  return `  ${approved ? '✓ approved' : '✗ denied'} ${event.toolName} (call ${event.callId})${changed}${reason}${via}`;
}
