import { createStopConditionRegistry, type CustomStopCondition } from './stop-conditions';

/**
 * Named stop conditions a run references as `{ "custom": "<name>", "params": { ... } }`, registered in the worker's
 * workflows module (`registerStopCondition('quiet', (context) => ({ stop: context.turnIteration > 3 }))`); they run in
 * the workflow, so they must be pure and deterministic.
 */
export const stopConditionRegistry = createStopConditionRegistry();

/** Adds a named stop condition; a name can be registered once. */
export function registerStopCondition(name: string, condition: CustomStopCondition): void {
  stopConditionRegistry.register(name, condition);
}
