/** Workflows registered by the worker. */
export { agentWorkflow } from './agent-workflow';
