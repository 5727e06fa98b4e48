import type { ToolContext } from '../../src/tools/define-tool';

/** The context a tool's `execute` gets, for a tool run outside an activity. */
export const toolContext = (): ToolContext => ({
  idempotencyKey: 'workflow-1:call-1',
  workflowId: 'workflow-1',
  runId: 'run-1',
  callId: 'call-1',
  attempt: 1,
  signal: new AbortController().signal,
});
