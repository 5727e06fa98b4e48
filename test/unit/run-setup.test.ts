import { toTerminating } from '../../src/api/schemas';
import { DEFAULT_MAX_INVOCATIONS } from '../../src/shared/defaults/run-input';
import { parseAgentInput, type AgentInput, type ParsedAgentInput } from '../../src/shared/agent-input';
import { type ToolDescription } from '../../src/shared/activity-types';
import { effectiveMaxInvocations, selectRunTools } from '../../src/workflows/rules/run-setup';

const tool = (name: string, terminating = false): ToolDescription => ({
  name,
  description: `${name} tool`,
  parameters: { type: 'object' },
  terminating,
  needsApproval: 'never',
});

const CATALOG = [tool('calculator'), tool('finish', true), tool('read_file'), tool('task_complete')];

/** The input as the workflow sees it: parsed, with defaults applied. */
function parsed(input: Partial<AgentInput>): ParsedAgentInput {
  const result = parseAgentInput({ message: 'Hi', tools: [], ...input });
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.input;
}

describe('selectRunTools', () => {
  test('keeps the catalog entries the input names, in catalog order', () => {
    const selected = selectRunTools(CATALOG, parsed({ tools: ['read_file', 'calculator'] }));

    expect(selected).toEqual({
      ok: true,
      tools: { descriptions: [tool('calculator'), tool('read_file')], terminating: new Set() },
    });
  });

  test('terminating tools come from the catalog and from terminating.toolIds', () => {
    const selected = selectRunTools(
      CATALOG,
      parsed({ tools: ['calculator', 'finish', 'task_complete'], terminating: { toolIds: ['task_complete'] } }),
    );

    expect(selected.ok && [...selected.tools.terminating]).toEqual(['finish', 'task_complete']);
  });

  test('a tool the worker does not register is reported with the registered ones', () => {
    const selected = selectRunTools(CATALOG, parsed({ tools: ['calculator', 'web_search'] }));

    expect(selected).toEqual({ ok: false, unknown: ['web_search'], registered: CATALOG.map((entry) => entry.name) });
  });
});

describe('effectiveMaxInvocations', () => {
  test("the default when neither limit is set: 64, the seeds' max_invocations", () => {
    // The literal, not the constant: a change of the default must fail here.
    expect(DEFAULT_MAX_INVOCATIONS).toBe(64);
    expect(effectiveMaxInvocations(parsed({}))).toBe(64);
  });

  test('the HTTP chat path has no default of its own: terminating_config without max_invocations leaves 64', () => {
    const terminating = toTerminating({ tool_ids: ['finish'] });
    expect(terminating).not.toHaveProperty('maxInvocations');
    expect(effectiveMaxInvocations(parsed({ tools: ['finish'], terminating }))).toBe(64);
  });

  test('the smaller of the top-level and the terminating limit', () => {
    const input = parsed({
      tools: ['finish'],
      maxInvocations: 10,
      terminating: { toolIds: ['finish'], maxInvocations: 4 },
    });

    expect(effectiveMaxInvocations(input)).toBe(4);
    expect(effectiveMaxInvocations(parsed({ maxInvocations: 7 }))).toBe(7);
  });
});
