// Your worker's workflows module: the agent's workflows re-exported beside your own.
export * from 'agent-runner/workflow';

export async function greetingWorkflow(name: string): Promise<string> {
  return `Hello, ${name}`;
}
