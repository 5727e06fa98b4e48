import { z } from 'zod';
import type { ApprovalConfig } from '../../src/shared/agent-input';
import type { ApprovalDecision, PendingApproval } from '../../src/shared/control';
import type { ToolCall } from '../../src/shared/messages';
import type { ToolDescription } from '../../src/shared/activity-types';
import { checkDecision, needsApproval } from '../../src/workflows/rules/approval-rules';

const toolCall = (id: string, name: string): ToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: '{}' },
});

const toolDescription = (name: string, mode: ToolDescription['needsApproval']): ToolDescription => ({
  name,
  description: `The ${name} tool.`,
  parameters: { type: 'object', properties: {} },
  terminating: false,
  needsApproval: mode,
});

const approvalFor = (tools: ApprovalConfig['tools']): ApprovalConfig => ({ tools, onTimeout: 'deny' });

/** The JSON Schema a registered tool exposes, built the way the tool registry builds it. */
function parametersSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

const NOTHING_FLAGGED: ReadonlySet<string> = new Set();

describe('needsApproval', () => {
  const call = toolCall('call-1', 'write_file');

  test('without an approval config a "never" tool runs without approval', () => {
    expect(needsApproval(call, toolDescription('write_file', 'never'), undefined, NOTHING_FLAGGED)).toBe(false);
  });

  test('an empty approval tool list requires nothing', () => {
    expect(needsApproval(call, toolDescription('write_file', 'never'), approvalFor([]), NOTHING_FLAGGED)).toBe(false);
  });

  test("a tool list naming the call's tool requires approval", () => {
    const approval = approvalFor(['read_file', 'write_file']);

    expect(needsApproval(call, toolDescription('write_file', 'never'), approval, NOTHING_FLAGGED)).toBe(true);
  });

  test('a tool list naming only other tools does not require approval', () => {
    const approval = approvalFor(['read_file', 'calculator']);

    expect(needsApproval(call, toolDescription('write_file', 'never'), approval, NOTHING_FLAGGED)).toBe(false);
  });

  test("the tool list is matched by the call's function name, not its id", () => {
    const callNamedLikeTool = toolCall('read_file', 'write_file');

    expect(
      needsApproval(
        callNamedLikeTool,
        toolDescription('write_file', 'never'),
        approvalFor(['read_file']),
        NOTHING_FLAGGED,
      ),
    ).toBe(false);
  });

  test('"all" requires approval for every tool', () => {
    expect(needsApproval(call, toolDescription('write_file', 'never'), approvalFor('all'), NOTHING_FLAGGED)).toBe(true);
  });

  test('an "always" tool requires approval without any approval config', () => {
    expect(needsApproval(call, toolDescription('write_file', 'always'), undefined, NOTHING_FLAGGED)).toBe(true);
  });

  test('an "always" tool requires approval even when the tool list names other tools', () => {
    expect(
      needsApproval(call, toolDescription('write_file', 'always'), approvalFor(['read_file']), NOTHING_FLAGGED),
    ).toBe(true);
  });

  test('a "never" tool still requires approval when the run lists it', () => {
    expect(
      needsApproval(call, toolDescription('write_file', 'never'), approvalFor(['write_file']), NOTHING_FLAGGED),
    ).toBe(true);
  });

  test('a "dynamic" tool alone does not require approval', () => {
    expect(needsApproval(call, toolDescription('write_file', 'dynamic'), undefined, NOTHING_FLAGGED)).toBe(false);
  });

  test('a "dynamic" tool requires approval when the worker flagged this call', () => {
    expect(needsApproval(call, toolDescription('write_file', 'dynamic'), undefined, new Set(['call-1']))).toBe(true);
  });

  test('a "dynamic" tool does not require approval when the worker flagged only other calls', () => {
    expect(
      needsApproval(call, toolDescription('write_file', 'dynamic'), undefined, new Set(['call-2', 'call-3'])),
    ).toBe(false);
  });

  test('a "dynamic" tool listed by the run requires approval without a flag', () => {
    expect(
      needsApproval(call, toolDescription('write_file', 'dynamic'), approvalFor(['write_file']), NOTHING_FLAGGED),
    ).toBe(true);
  });
});

describe('checkDecision', () => {
  const writeFilePending: PendingApproval = {
    callId: 'call-1',
    toolName: 'write_file',
    arguments: { path: 'notes.txt', content: 'hello' },
    requestedAt: '2024-05-01T10:00:00.000Z',
  };
  const calculatorPending: PendingApproval = {
    callId: 'call-2',
    toolName: 'calculator',
    arguments: { expression: '1 + 1' },
    requestedAt: '2024-05-01T10:00:01.000Z',
  };
  const pending: readonly PendingApproval[] = [writeFilePending, calculatorPending];
  const nothingDecided: ReadonlyMap<string, ApprovalDecision> = new Map();

  const writeFileParameters = parametersSchema(
    z.object({ path: z.string(), content: z.string(), append: z.boolean().optional() }),
  );
  const strictCalculatorParameters = parametersSchema(z.strictObject({ expression: z.string() }));
  const schemas = new Map<string, Record<string, unknown>>([
    ['write_file', writeFileParameters],
    ['calculator', strictCalculatorParameters],
  ]);
  const parametersOf = (toolName: string): Record<string, unknown> | undefined => schemas.get(toolName);

  describe('malformed input', () => {
    test('a value that is not an object is malformed at the input itself', () => {
      expect(checkDecision('approve call-1', pending, nothingDecided, parametersOf)).toEqual({
        ok: false,
        problem: 'Malformed decision: input: Invalid input: expected object, received string',
      });
    });

    test('null is malformed', () => {
      expect(checkDecision(null, pending, nothingDecided, parametersOf)).toEqual({
        ok: false,
        problem: 'Malformed decision: input: Invalid input: expected object, received null',
      });
    });

    test('a missing callId is named by its path', () => {
      expect(checkDecision({ decision: 'approve' }, pending, nothingDecided, parametersOf)).toEqual({
        ok: false,
        problem: 'Malformed decision: callId: Invalid input: expected string, received undefined',
      });
    });

    test('an empty callId is malformed', () => {
      expect(checkDecision({ callId: '', decision: 'approve' }, pending, nothingDecided, parametersOf)).toEqual({
        ok: false,
        problem: 'Malformed decision: callId: Too small: expected string to have >=1 characters',
      });
    });

    test('a decision other than approve or deny is named by its path', () => {
      expect(checkDecision({ callId: 'call-1', decision: 'maybe' }, pending, nothingDecided, parametersOf)).toEqual({
        ok: false,
        problem: 'Malformed decision: decision: Invalid option: expected one of "approve"|"deny"',
      });
    });

    test('an unknown extra key is refused because the schema is strict', () => {
      const result = checkDecision(
        { callId: 'call-1', decision: 'approve', comment: 'ok' },
        pending,
        nothingDecided,
        parametersOf,
      );

      expect(result).toEqual({ ok: false, problem: 'Malformed decision: input: Unrecognized key: "comment"' });
    });

    test('every problem is listed, separated by semicolons', () => {
      expect(checkDecision({}, pending, nothingDecided, parametersOf)).toEqual({
        ok: false,
        problem:
          'Malformed decision: callId: Invalid input: expected string, received undefined; ' +
          'decision: Invalid option: expected one of "approve"|"deny"',
      });
    });

    test('arguments that are not a JSON object are malformed', () => {
      const result = checkDecision(
        { callId: 'call-1', decision: 'approve', arguments: ['notes.txt'] },
        pending,
        nothingDecided,
        parametersOf,
      );

      expect(result).toEqual({
        ok: false,
        problem: 'Malformed decision: arguments: Invalid input: expected record, received array',
      });
    });
  });

  describe('calls already decided', () => {
    const approvedEarlier: ApprovalDecision = {
      callId: 'call-1',
      toolName: 'write_file',
      decision: 'approve',
      arguments: writeFilePending.arguments,
      decidedAt: '2024-05-01T10:05:00.000Z',
      via: 'signal',
    };
    const deniedEarlier: ApprovalDecision = {
      callId: 'call-9',
      toolName: 'delete_file',
      decision: 'deny',
      arguments: { path: 'notes.txt' },
      reason: 'too risky',
      decidedAt: '2024-05-01T10:06:00.000Z',
      via: 'timeout',
    };
    const decided: ReadonlyMap<string, ApprovalDecision> = new Map([
      ['call-1', approvedEarlier],
      ['call-9', deniedEarlier],
    ]);

    test('an approved call cannot be decided again', () => {
      expect(checkDecision({ callId: 'call-1', decision: 'deny' }, pending, decided, parametersOf)).toEqual({
        ok: false,
        problem: 'Call "call-1" was already decided: approved at 2024-05-01T10:05:00.000Z (via signal).',
      });
    });

    test('a denied call reports its denial and how it was made', () => {
      expect(checkDecision({ callId: 'call-9', decision: 'approve' }, pending, decided, parametersOf)).toEqual({
        ok: false,
        problem: 'Call "call-9" was already decided: denied at 2024-05-01T10:06:00.000Z (via timeout).',
      });
    });

    test('the already-decided check comes before the pending check', () => {
      expect(checkDecision({ callId: 'call-9', decision: 'deny' }, [], decided, parametersOf)).toEqual({
        ok: false,
        problem: 'Call "call-9" was already decided: denied at 2024-05-01T10:06:00.000Z (via timeout).',
      });
    });
  });

  describe('calls not waiting', () => {
    test('an unknown call id lists the calls that are waiting', () => {
      expect(checkDecision({ callId: 'call-7', decision: 'approve' }, pending, nothingDecided, parametersOf)).toEqual({
        ok: false,
        problem: 'No call "call-7" is waiting for approval. Waiting: call-1 (write_file), call-2 (calculator).',
      });
    });

    test('with nothing pending it says nothing is waiting', () => {
      expect(checkDecision({ callId: 'call-7', decision: 'deny' }, [], nothingDecided, parametersOf)).toEqual({
        ok: false,
        problem: 'No call "call-7" is waiting for approval. Nothing is waiting.',
      });
    });
  });

  describe('denials', () => {
    test('a denial with arguments is refused', () => {
      const result = checkDecision(
        { callId: 'call-1', decision: 'deny', arguments: { path: 'other.txt', content: '' } },
        pending,
        nothingDecided,
        parametersOf,
      );

      expect(result).toEqual({ ok: false, problem: 'A denial takes no arguments.' });
    });

    test('a denial with a reason is accepted with its pending entry', () => {
      const input = { callId: 'call-2', decision: 'deny', reason: 'not now' };

      expect(checkDecision(input, pending, nothingDecided, parametersOf)).toEqual({
        ok: true,
        input: { callId: 'call-2', decision: 'deny', reason: 'not now' },
        pending: calculatorPending,
      });
    });
  });

  describe('replacement arguments', () => {
    test('a field of the wrong type is refused, naming the field', () => {
      const result = checkDecision(
        { callId: 'call-1', decision: 'approve', arguments: { path: 42, content: 'hello' } },
        pending,
        nothingDecided,
        parametersOf,
      );

      expect(result).toEqual({
        ok: false,
        problem:
          'Arguments for "write_file" do not fit its schema: path: Invalid input: expected string, received number',
      });
    });

    test('a missing required field is refused, naming the field', () => {
      const result = checkDecision(
        { callId: 'call-1', decision: 'approve', arguments: { path: 'notes.txt' } },
        pending,
        nothingDecided,
        parametersOf,
      );

      expect(result).toEqual({
        ok: false,
        problem:
          'Arguments for "write_file" do not fit its schema: content: Invalid input: expected string, received undefined',
      });
    });

    test('several problems are joined with semicolons', () => {
      const result = checkDecision(
        { callId: 'call-1', decision: 'approve', arguments: { path: 1, content: 2 } },
        pending,
        nothingDecided,
        parametersOf,
      );

      expect(result).toEqual({
        ok: false,
        problem:
          'Arguments for "write_file" do not fit its schema: path: Invalid input: expected string, received number; ' +
          'content: Invalid input: expected string, received number',
      });
    });

    test('an extra field is refused when the schema forbids additional properties', () => {
      expect(strictCalculatorParameters.additionalProperties).toBe(false);

      const result = checkDecision(
        { callId: 'call-2', decision: 'approve', arguments: { expression: '2 * 3', precision: 2 } },
        pending,
        nothingDecided,
        parametersOf,
      );

      expect(result).toEqual({
        ok: false,
        problem: 'Arguments for "calculator" do not fit its schema: arguments: Unrecognized key: "precision"',
      });
    });

    test('an extra field is accepted when the schema allows additional properties', () => {
      expect(writeFileParameters.additionalProperties).toBeUndefined();
      const input = {
        callId: 'call-1',
        decision: 'approve',
        arguments: { path: 'notes.txt', content: 'hello', mode: 'overwrite' },
      };

      expect(checkDecision(input, pending, nothingDecided, parametersOf)).toEqual({
        ok: true,
        input,
        pending: writeFilePending,
      });
    });

    test('valid arguments are accepted with the matching pending entry', () => {
      const input = {
        callId: 'call-1',
        decision: 'approve',
        arguments: { path: 'safe.txt', content: 'hello', append: true },
      };

      expect(checkDecision(input, pending, nothingDecided, parametersOf)).toEqual({
        ok: true,
        input: {
          callId: 'call-1',
          decision: 'approve',
          arguments: { path: 'safe.txt', content: 'hello', append: true },
        },
        pending: writeFilePending,
      });
    });

    test("parametersOf is asked for the pending call's tool", () => {
      const askedFor: string[] = [];
      const recordingParametersOf = (toolName: string): Record<string, unknown> | undefined => {
        askedFor.push(toolName);
        return parametersOf(toolName);
      };

      checkDecision(
        { callId: 'call-2', decision: 'approve', arguments: { expression: '1' } },
        pending,
        nothingDecided,
        recordingParametersOf,
      );

      expect(askedFor).toEqual(['calculator']);
    });

    test('without a schema for the tool the arguments are not checked', () => {
      const input = { callId: 'call-1', decision: 'approve', arguments: { anything: [1, 2, 3] } };

      expect(checkDecision(input, pending, nothingDecided, () => undefined)).toEqual({
        ok: true,
        input: { callId: 'call-1', decision: 'approve', arguments: { anything: [1, 2, 3] } },
        pending: writeFilePending,
      });
    });

    test('an approval without arguments does not consult the schema', () => {
      const askedFor: string[] = [];
      const recordingParametersOf = (toolName: string): Record<string, unknown> | undefined => {
        askedFor.push(toolName);
        return parametersOf(toolName);
      };

      const result = checkDecision(
        { callId: 'call-1', decision: 'approve' },
        pending,
        nothingDecided,
        recordingParametersOf,
      );

      expect(result).toEqual({ ok: true, input: { callId: 'call-1', decision: 'approve' }, pending: writeFilePending });
      expect(askedFor).toEqual([]);
    });
  });

  test("the returned pending entry is the caller's own object", () => {
    const result = checkDecision({ callId: 'call-2', decision: 'approve' }, pending, nothingDecided, parametersOf);

    if (!result.ok) throw new Error(`expected an accepted decision, got: ${result.problem}`);
    expect(result.pending).toBe(calculatorPending);
  });
});
