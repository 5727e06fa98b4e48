/** Workflows registered by the worker. */
export { agentWorkflow } from './agent/agent-workflow';
export { registerStopCondition } from './rules/custom-stop-conditions';
export type { CustomStopCondition, StopContext } from './rules/stop-conditions';
export { registerApprovalPolicy } from './rules/approval-policies';
export type { ApprovalPolicy, ApprovalPolicyCall, ApprovalPolicyDecision } from './rules/approval-policies';
export type { StopToolResult } from './rules/stop-conditions';
export { conversationWorkflow } from './conversation/conversation-workflow';
