import { createStopConditionRegistry, type CustomStopCondition } from './stop-conditions';

/**
 * Named stop conditions that runs may reference from JSON as
 * `{ "custom": "<name>", "params": { ... } }`. Register them in workflow code,
 * in the module the worker bundles as its workflows, before any run starts:
 *
 *   export * from 'agent-runner/workflow';
 *   registerStopCondition('quiet', (context) => ({ stop: context.turnIteration > 3 }));
 *
 * A condition must be pure and deterministic: it runs inside the workflow.
 */
export const stopConditionRegistry = createStopConditionRegistry();

/** Adds a named stop condition; a name can be registered once. */
export function registerStopCondition(name: string, condition: CustomStopCondition): void {
  stopConditionRegistry.register(name, condition);
}
