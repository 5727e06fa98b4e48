/** Workflows registered by the worker. */
export { agentWorkflow } from './agent-workflow';
export { registerStopCondition } from './custom-stop-conditions';
export type { CustomStopCondition, StopContext } from './stop-conditions';
export { conversationWorkflow } from './conversation-workflow';
