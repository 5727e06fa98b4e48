/** Workflows registered by the worker. */
export { agentWorkflow } from './agent/agent-workflow';
export { registerStopCondition } from './rules/custom-stop-conditions';
export type { CustomStopCondition, StopContext } from './rules/stop-conditions';
export type { StopToolResult } from './rules/stop-conditions';
export { conversationWorkflow } from './conversation/conversation-workflow';
