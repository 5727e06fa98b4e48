import { defineAgentTool, type AgentToolDefinitionOf } from '../../src/tools/define-agent-tool';
import { CHAOS_TOOL } from './chaos-tool';

/** The chaos runs' nested agent, as the chaos agent calls it with `{ task }`. */
export const CHAOS_DELEGATE = 'chaos_delegate';

/** Model calls a delegated chaos run makes: one `chaos_step`, then `finish`. */
export const DELEGATE_ITERATIONS = 2;

/**
 * `chaos_delegate`: a nested agent (a child workflow `<parent id>/<call id>`)
 * on the same chaos model, whose task is a chaos task of its own
 * ({@link DELEGATE_ITERATIONS} model calls), so it performs one `chaos_step`
 * side effect and finishes with a note that is a pure function of its task:
 * its answer, the parent's tool result, is the same however often a worker
 * dies under it.
 */
export function chaosDelegateTool(): AgentToolDefinitionOf {
  return defineAgentTool({
    name: CHAOS_DELEGATE,
    description: 'Hands one chaos task to a nested chaos agent, which does one step and answers.',
    instructions: 'You are a nested chaos agent: do the chaos task you are given, then finish.',
    tools: [CHAOS_TOOL, 'finish'],
  });
}
