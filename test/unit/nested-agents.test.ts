import { NESTED_AGENT_DEFAULTS } from '../../src/shared/defaults/run-input';
import { ZERO_USAGE, type Usage } from '../../src/shared/messages';
import { parseAgentInput, treePosition } from '../../src/shared/agent-input';
import { type AgentToolSpec } from '../../src/shared/activity-types';
import {
  childInput,
  childLimits,
  childWorkflowId,
  completedChildContent,
  depthRefusal,
  isStopMessage,
  readAgentTask,
  recordChildUsage,
  treeUsage,
} from '../../src/workflows/rules/nested-agents';

const usage = (promptTokens: number, completionTokens: number): Usage => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
});

describe('depth: a run at depth d may start a nested agent only when d + 1 < maxDepth', () => {
  test('with the default 3: the top run and the agent it calls may, the agent one level below may not', () => {
    expect(NESTED_AGENT_DEFAULTS.maxDepth).toBe(3);
    expect(depthRefusal('worker', 0, 3)).toBeUndefined();
    expect(depthRefusal('worker', 1, 3)).toBeUndefined();
    expect(depthRefusal('worker', 2, 3)).toMatch(
      /^Error: MaxDepthExceeded: the nested agent "worker" would run at depth 3, and this tree allows depths below 3/,
    );
  });

  test('maxDepth 1 allows no nested agent at all', () => {
    expect(depthRefusal('worker', 0, 1)).toMatch(/MaxDepthExceeded/);
  });

  test('the input: depth is 0 and maxDepth 3 unless given; both non-negative integers, depth below maxDepth', () => {
    const parsed = parseAgentInput({ tools: [], message: 'hi' });
    expect(parsed.ok && treePosition(parsed.input)).toEqual({ depth: 0, maxDepth: 3 });
    const problems = (input: Record<string, unknown>) => {
      const result = parseAgentInput({ tools: [], message: 'hi', ...input });
      return result.ok ? [] : result.problems;
    };
    expect(problems({ depth: -1 })[0]).toMatch(/^depth: /);
    expect(problems({ depth: 1.5 })[0]).toMatch(/^depth: /);
    expect(problems({ maxDepth: 0 })[0]).toMatch(/^maxDepth: /);
    expect(problems({ depth: 3, maxDepth: 3 })).toEqual([
      "depth: depth 3 is not below maxDepth 3; a run must sit above the tree's deepest level (leave depth out: the runner sets it)",
    ]);
  });
});

describe('the child run', () => {
  const spec: AgentToolSpec = {
    kind: 'agent',
    instructions: 'Research.',
    tools: ['ping', 'finish'],
    terminatingToolIds: ['finish'],
    maxInvocations: 5,
  };

  test("its input: the definition, the task, one level deeper, the same maxDepth, the parent's model unless its own", () => {
    expect(
      childInput(
        spec,
        'find x',
        { model: 'parent-model', depth: 1, maxDepth: 4 },
        { tokenBudget: { maxTotal: 90 }, timeoutMs: 5000 },
      ),
    ).toEqual({
      model: 'parent-model',
      instructions: 'Research.',
      tools: ['ping', 'finish'],
      message: 'find x',
      depth: 2,
      maxDepth: 4,
      maxInvocations: 5,
      terminating: { toolIds: ['finish'] },
      tokenBudget: { maxTotal: 90 },
      timeout: 5000,
    });
    expect(childInput({ ...spec, model: 'own' }, 't', { depth: 0, maxDepth: 3 }, {}).model).toBe('own');
    const parsed = parseAgentInput(childInput(spec, 'find x', { depth: 0, maxDepth: 3 }, {}));
    expect(parsed.ok).toBe(true);
  });

  test("its limits: what is left of the tree's token budget and of the deadline; nothing left refuses it", () => {
    expect(childLimits({}, usage(50, 50), undefined, 0)).toEqual({ ok: true });
    expect(childLimits({ maxTotal: 300, maxCompletion: 80 }, usage(100, 50), 10_000, 4_000)).toEqual({
      ok: true,
      tokenBudget: { maxTotal: 150, maxCompletion: 30 },
      timeoutMs: 6_000,
    });
    expect(childLimits({ maxTotal: 150 }, usage(100, 50), undefined, 0)).toEqual({
      ok: false,
      spent: 'the token budget (maxTotal 150, 150 used)',
    });
    expect(childLimits({}, ZERO_USAGE, 1_000, 1_000)).toMatchObject({ ok: false });
  });

  test("its cost budget: what is left of the tree's; a budget spent refuses it, and the child input carries the rest", () => {
    const spent = { ...usage(100, 50), costUsd: 0.25 };
    expect(childLimits({}, spent, undefined, 0, { maxUsd: 1 })).toEqual({ ok: true, costBudget: { maxUsd: 0.75 } });
    expect(childLimits({}, usage(100, 50), undefined, 0, { maxUsd: 1 })).toEqual({
      ok: true,
      costBudget: { maxUsd: 1 },
    });
    expect(childLimits({}, { ...spent, costUsd: 1 }, undefined, 0, { maxUsd: 1 })).toEqual({
      ok: false,
      spent: 'the cost budget (maxUsd 1, 1 spent)',
    });
    const input = childInput(spec, 'find x', { depth: 0, maxDepth: 3 }, { costBudget: { maxUsd: 0.75 } });
    expect(input.costBudget).toEqual({ maxUsd: 0.75 });
    expect(parseAgentInput(input).ok).toBe(true);
  });

  test("its id comes from the parent's id and the runner call id", () => {
    expect(childWorkflowId('order-7', 'call-2-1')).toBe('order-7/call-2-1');
  });

  test('the task argument: a non-empty text, anything else a clear problem', () => {
    expect(readAgentTask('{"task":"go"}', 100)).toEqual({ ok: true, task: 'go' });
    expect(readAgentTask('not json', 100)).toEqual({
      ok: false,
      problem: 'the arguments are not JSON; give {"task": "..."}',
    });
    expect(readAgentTask('[1]', 100)).toMatchObject({ ok: false });
    expect(readAgentTask('{"task":"  "}', 100)).toMatchObject({ ok: false });
    expect(readAgentTask('{"task":"abc"}', 2)).toEqual({ ok: false, problem: '"task" is longer than 2 characters' });
  });

  test('what the parent hears: the response, or that the child was stopped; a stop message is a terminating ending', () => {
    expect(completedChildContent('r', { type: 'complete' }, 'done')).toEqual({ content: 'done', cancelled: false });
    expect(completedChildContent('r', { type: 'external', via: 'cancel' }, 'half')).toEqual({
      content: 'Cancelled: the nested agent "r" was stopped before it finished. Its last words: half',
      cancelled: true,
    });
    expect(isStopMessage({ type: 'terminate_response', toolName: 'finish', callId: 'c' })).toBe(true);
    expect(isStopMessage({ type: 'terminating_tool', toolName: 'done', callId: 'c' })).toBe(true);
    expect(isStopMessage({ type: 'complete' })).toBe(false);
  });
});

describe('usage over the tree', () => {
  test("children are summed into the tree; the run's own usage stays its own", () => {
    let nested = recordChildUsage(undefined, { runId: 'a', toolName: 'r', usage: usage(10, 5) });
    nested = recordChildUsage(nested, { runId: 'b', toolName: 'w', usage: usage(1, 2) });
    expect(nested).toEqual({
      children: [
        { runId: 'a', toolName: 'r', usage: usage(10, 5) },
        { runId: 'b', toolName: 'w', usage: usage(1, 2) },
      ],
      omitted: 0,
      total: usage(11, 7),
    });
    expect(treeUsage(usage(100, 100), nested)).toEqual(usage(111, 107));
    expect(treeUsage(usage(100, 100), undefined)).toEqual(usage(100, 100));
  });

  test('past the listed count, children are counted and summed, not listed', () => {
    let nested = recordChildUsage(undefined, { runId: 'a', toolName: 'r', usage: usage(1, 1) }, 2);
    nested = recordChildUsage(nested, { runId: 'b', toolName: 'r', usage: usage(1, 1) }, 2);
    nested = recordChildUsage(nested, { runId: 'c', toolName: 'r', usage: usage(1, 1) }, 2);
    expect(nested.children.map((child) => child.runId)).toEqual(['a', 'b']);
    expect(nested.omitted).toBe(1);
    expect(nested.total).toEqual(usage(3, 3));
  });
});
