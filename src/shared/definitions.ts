import { defineQuery } from '@temporalio/workflow';
import type { AgentState } from './agent-result';

/**
 * Names of the queries (and, later, signals and updates) of `agentWorkflow`,
 * shared by the workflow, the client and the docs.
 */

/** Live state of a run. Usable at any moment, also after the run ended. */
export const stateQuery = defineQuery<AgentState>('state');
