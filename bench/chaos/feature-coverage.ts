import { RESULT_CACHE_DEFAULTS } from '../../src/shared/defaults/context-control';
import type { ChatMessage } from '../../src/shared/messages';
import type { ChildRun, RunOutcome } from './run-comparison';

/** What of nested agents and the result cache a batch of runs went through. */
export interface FeatureCoverage {
  /** Nested agents' Temporal runs, at any depth. */
  childRuns: number;
  /** Of those, the ones a kill landed in (a workflow task lost, or an activity retried). */
  childRunsInterrupted: number;
  /** Tool results the runs kept in their result cache (their summaries in the conversation). */
  cachedResults: number;
  /** `result_cache` calls answered with a slice (not a tool error). */
  cacheReads: number;
  /** Calls of the chaos MCP server's tool answered with its result (not a tool error). */
  mcpCalls: number;
}

/**
 * Counts, over the completed runs of a batch and their nested agents, the
 * child runs and the result-cache traffic, read from the outcomes alone:
 * what the report prints, and what a kill phase must have had some of, so a
 * change that stops the chaos runs from reaching either cannot pass unseen.
 */
export function countFeatureCoverage(outcomes: readonly RunOutcome[]): FeatureCoverage {
  const coverage: FeatureCoverage = {
    childRuns: 0,
    childRunsInterrupted: 0,
    cachedResults: 0,
    cacheReads: 0,
    mcpCalls: 0,
  };
  const visit = (outcome: RunOutcome) => {
    if (outcome.status !== 'completed') return;
    countCacheTraffic(outcome.result.messages, coverage);
    for (const child of outcome.children ?? []) visitChild(child);
  };
  const visitChild = (child: ChildRun) => {
    coverage.childRuns += child.runIds.length;
    if (child.interrupted) coverage.childRunsInterrupted += 1;
    visit(child.outcome);
  };
  for (const outcome of outcomes) visit(outcome);
  return coverage;
}

function countCacheTraffic(messages: readonly ChatMessage[], coverage: FeatureCoverage): void {
  const reads = new Set<string>();
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? [])
        if (call.function.name === RESULT_CACHE_DEFAULTS.toolName) reads.add(call.id);
    }
    if (message.role !== 'tool') continue;
    if (message.content.startsWith('mcp step ')) coverage.mcpCalls += 1;
    if (reads.has(message.tool_call_id)) {
      if (!message.content.startsWith('Error:')) coverage.cacheReads += 1;
    } else if (message.content.startsWith('[Cached as ')) {
      coverage.cachedResults += 1;
    }
  }
}
