import { type AgentState } from '../shared/agent-result';
import { oneLine } from './one-line';
import { describeCost, describeTerminationReason } from './outcome-lines';
import { answerCommand, approveCommand, denyCommand, elicitationAnswerCommand } from './steering-commands';

/**
 * `agent-runner status`: the `state` query as a short report. What needs the
 * operator (pending approvals, a question, its nested agents' questions) comes with the commands that answer it.
 */
export function describeState(state: AgentState, workflowId: string): string[] {
  const lines = [
    `Run ${workflowId}: ${state.status}`,
    `  progress:  ${describeCost(state.iteration, state.usage)} · ${state.invocations} of ${state.limits.maxInvocations} model calls used`,
    `  doing:     ${state.activity}`,
  ];
  if (state.lastEvent !== undefined)
    lines.push(`  last event: #${state.lastEvent.seq} ${state.lastEvent.type} at ${state.lastEvent.at}`);
  if (state.pendingApprovals.length > 0) {
    lines.push(`  pending approvals (${state.pendingApprovals.length}):`);
    for (const approval of state.pendingApprovals) {
      lines.push(
        `    ${approval.toolName} ${oneLine(approval.arguments)} (call ${approval.callId}, since ${approval.requestedAt})`,
        `      ${approveCommand(workflowId, approval.callId)}`,
        `      ${denyCommand(workflowId, approval.callId)}`,
      );
    }
  }
  if (state.question !== undefined) {
    lines.push(
      `  question:  ${oneLine(state.question.question)} (since ${state.question.askedAt})`,
      `      ${state.question.elicitationId === undefined ? answerCommand(workflowId) : elicitationAnswerCommand(workflowId, state.question.elicitationId)}`,
    );
  }
  for (const nested of state.nestedQuestions ?? []) {
    lines.push(
      `  nested agent's question: ${oneLine(nested.question)} (run ${nested.workflowId}, since ${nested.askedAt})`,
      `      ${elicitationAnswerCommand(nested.workflowId, nested.elicitationId)}`,
    );
  }
  if (state.terminationReason !== undefined)
    lines.push(`  ended:     ${describeTerminationReason(state.terminationReason)}`);
  if (state.error !== undefined) lines.push(`  error:     ${state.error.type}: ${state.error.message}`);
  return lines;
}
