import * as wf from '@temporalio/workflow';
import { agentWorkflow as currentWorkflow } from '../../src/workflows/agent/agent-workflow';

/**
 * The current workflow with one change a developer might make without
 * thinking of running workflows: a timer before the loop. Replaying a
 * recorded history against it must fail, which proves the replay test
 * catches such changes.
 */
export async function agentWorkflow(input: Parameters<typeof currentWorkflow>[0]): ReturnType<typeof currentWorkflow> {
  await wf.sleep('1 second');
  return currentWorkflow(input);
}
