import { z } from 'zod';
import { APPROVAL_POLICY_REASON_CHARS } from '../../src/shared/defaults/run-input';
import { INPUT_BOUNDS } from '../../src/shared/defaults/input-bounds';
import { parseAgentInput } from '../../src/shared/agent-input';
import { type ToolCall } from '../../src/shared/messages';
import { type ToolDescription } from '../../src/shared/activity-types';
import {
  applyApprovalPolicy,
  createApprovalPolicyRegistry,
  validateApprovalPolicy,
  type ApprovalPolicy,
  type ApprovalPolicyCall,
} from '../../src/workflows/rules/approval-policies';
import { needsApproval, toolAsksForApproval } from '../../src/workflows/rules/approval-rules';

/** The JSON Schema a registered tool exposes, built the way the tool registry builds it. */
function parametersSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

const transferParameters = parametersSchema(z.object({ amount: z.number().positive(), to: z.string() }));

const transferCall: ApprovalPolicyCall = {
  toolName: 'transfer',
  arguments: { amount: 250, to: 'alice' },
  callId: 'call-2-1',
  iteration: 2,
  toolAsksForApproval: false,
};

/** Applies `policy`, registered as "p", to the transfer call. */
function apply(policy: ApprovalPolicy, params: Record<string, unknown> = {}, call: ApprovalPolicyCall = transferCall) {
  return applyApprovalPolicy('p', createApprovalPolicyRegistry({ p: policy }), call, params, transferParameters);
}

describe('approval policy registry', () => {
  test('a name is registered once; an empty name is refused', () => {
    const registry = createApprovalPolicyRegistry({ b: () => ({ decision: 'ask' }) });
    registry.register('a', () => ({ decision: 'approve' }));
    expect(registry.names()).toEqual(['a', 'b']);
    expect(() => registry.register('a', () => ({ decision: 'deny' }))).toThrow(
      'an approval policy named "a" is already registered; register each name once',
    );
    expect(() => registry.register('', () => ({ decision: 'deny' }))).toThrow(
      'an approval policy needs a non-empty name',
    );
  });

  test('validateApprovalPolicy: no policy and a registered one pass; an unknown name lists the registered ones', () => {
    const registry = createApprovalPolicyRegistry({
      strict: () => ({ decision: 'deny' }),
      lenient: () => ({ decision: 'approve' }),
    });
    expect(validateApprovalPolicy(undefined, registry)).toBeUndefined();
    expect(validateApprovalPolicy('strict', registry)).toBeUndefined();
    expect(validateApprovalPolicy('nope', registry)).toBe(
      'approval.policy: no approval policy named "nope" is registered (registered: lenient, strict); register it with registerApprovalPolicy in the worker\'s workflows module',
    );
    expect(validateApprovalPolicy('nope', createApprovalPolicyRegistry())).toMatch(/\(registered: none\)/);
  });
});

describe('applyApprovalPolicy', () => {
  test('the policy gets the call and the params', () => {
    const seen: unknown[] = [];
    apply(
      (call, params) => {
        seen.push(call, params);
        return { decision: 'approve' };
      },
      { limit: 100 },
    );
    expect(seen).toEqual([transferCall, { limit: 100 }]);
  });

  test('approve and ask pass through, with their reason', () => {
    expect(apply(() => ({ decision: 'approve' }))).toEqual({ decision: 'approve' });
    expect(apply(() => ({ decision: 'approve', reason: 'small' }))).toEqual({ decision: 'approve', reason: 'small' });
    expect(apply(() => ({ decision: 'ask', reason: 'large' }))).toEqual({ decision: 'ask', reason: 'large' });
  });

  test('a deny keeps its reason, and without one names the policy', () => {
    expect(apply(() => ({ decision: 'deny', reason: 'over the limit' }))).toEqual({
      decision: 'deny',
      reason: 'over the limit',
    });
    expect(apply(() => ({ decision: 'deny' }))).toEqual({
      decision: 'deny',
      reason: 'approval policy "p" denied the call',
    });
  });

  test('a decision that depends on params: the same policy approves or denies', () => {
    const underLimit: ApprovalPolicy = (call, params) =>
      (call.arguments as { amount: number }).amount <= Number(params.limit)
        ? { decision: 'approve' }
        : { decision: 'deny', reason: `over ${String(params.limit)}` };
    expect(apply(underLimit, { limit: 1000 })).toEqual({ decision: 'approve' });
    expect(apply(underLimit, { limit: 100 })).toEqual({ decision: 'deny', reason: 'over 100' });
  });

  test('a modification that fits the schema is the arguments the tool runs with', () => {
    expect(apply(() => ({ decision: 'modify', arguments: { amount: 100, to: 'alice' }, reason: 'capped' }))).toEqual({
      decision: 'modify',
      arguments: { amount: 100, to: 'alice' },
      reason: 'capped',
    });
  });

  test("a modification that breaks the tool's schema denies the call with the schema's message", () => {
    expect(apply(() => ({ decision: 'modify', arguments: { amount: -5, to: 'alice' } }))).toEqual({
      decision: 'deny',
      reason:
        'approval policy "p" modified the arguments of "transfer" to ones that do not fit its schema: amount: Too small: expected number to be >0',
    });
    expect(apply(() => ({ decision: 'modify', arguments: { amount: 5 } }))).toEqual({
      decision: 'deny',
      reason:
        'approval policy "p" modified the arguments of "transfer" to ones that do not fit its schema: to: Invalid input: expected string, received undefined',
    });
  });

  test('replacement arguments are made plain JSON before they are checked', () => {
    const outcome = apply(() => ({ decision: 'modify', arguments: { amount: 7, to: 'bob', note: undefined } }));
    expect(outcome).toEqual({ decision: 'modify', arguments: { amount: 7, to: 'bob' } });
    expect(Object.keys((outcome as { arguments: object }).arguments)).toEqual(['amount', 'to']);
  });

  test('replacement arguments that are not JSON, too deep or too large deny the call', () => {
    const cyclic: Record<string, unknown> = { amount: 1, to: 'x' };
    cyclic.self = cyclic;
    expect(apply(() => ({ decision: 'modify', arguments: cyclic }))).toEqual({
      decision: 'deny',
      reason: expect.stringMatching(
        /^approval policy "p" failed: it returned a malformed decision: arguments\.self\.self.*nested deeper than 32 levels$/,
      ) as unknown,
    });
    expect(
      apply(() => ({ decision: 'modify', arguments: { amount: 1, to: 'x', big: 10n } as Record<string, unknown> })),
    ).toEqual({
      decision: 'deny',
      reason:
        'approval policy "p" failed: its replacement arguments are not JSON: TypeError: Do not know how to serialize a BigInt',
    });
    const huge = 'x'.repeat(INPUT_BOUNDS.textChars);
    expect(apply(() => ({ decision: 'modify', arguments: { amount: 1, to: huge } }))).toEqual({
      decision: 'deny',
      reason: `approval policy "p" failed: its replacement arguments are ${INPUT_BOUNDS.textChars + 20} characters of JSON, more than ${INPUT_BOUNDS.textChars}`,
    });
  });

  test('a policy that throws denies the call, naming the policy and the error', () => {
    expect(
      apply(() => {
        throw new RangeError('limit missing');
      }),
    ).toEqual({ decision: 'deny', reason: 'approval policy "p" failed: it threw RangeError: limit missing' });
    expect(
      apply(() => {
        throw 'nope';
      }),
    ).toEqual({ decision: 'deny', reason: 'approval policy "p" failed: it threw "nope"' });
  });

  test('a thrown value whose description throws too still ends in a denial', () => {
    const hostile = {
      toString: () => {
        throw new Error('no');
      },
    };
    expect(
      apply(() => {
        throw hostile;
      }),
    ).toEqual({ decision: 'deny', reason: 'approval policy "p" failed: it threw a value that cannot be described' });
  });

  test('a malformed decision denies the call and says what was expected', () => {
    const expected = 'expected { decision: "approve" | "deny" | "modify" | "ask", arguments?, reason? }';
    expect(apply(() => ({ decision: 'maybe' }) as never)).toEqual({
      decision: 'deny',
      reason: `approval policy "p" failed: it returned a malformed decision (decision: Invalid discriminator value. Expected 'approve' | 'deny' | 'modify' | 'ask'); ${expected}`,
    });
    expect(apply(() => undefined as never)).toEqual({
      decision: 'deny',
      reason: `approval policy "p" failed: it returned a malformed decision (decision: Invalid input: expected object, received undefined); ${expected}`,
    });
    // A misspelt field is a problem, not silently ignored: "args" would otherwise run the model's arguments.
    expect(apply(() => ({ decision: 'modify', args: { amount: 1, to: 'x' } }) as never)).toEqual({
      decision: 'deny',
      reason: expect.stringContaining(
        'approval policy "p" failed: it returned a malformed decision (arguments: Invalid input: expected record, received undefined; decision: Unrecognized key: "args")',
      ) as unknown,
    });
    expect(apply(() => ({ decision: 'deny', reason: 42 }) as never)).toEqual({
      decision: 'deny',
      reason: `approval policy "p" failed: it returned a malformed decision (reason: Invalid input: expected string, received number); ${expected}`,
    });
  });

  test('a policy that returns a promise denies the call: policies decide synchronously', () => {
    expect(apply((() => Promise.resolve({ decision: 'approve' })) as never)).toEqual({
      decision: 'deny',
      reason:
        'approval policy "p" failed: it returned a promise; a policy decides synchronously, without awaiting anything',
    });
  });

  test('a decision whose fields throw when read denies the call', () => {
    const hostile = {
      get decision(): string {
        throw new Error('trap');
      },
    };
    expect(apply(() => hostile as never)).toEqual({
      decision: 'deny',
      reason: 'approval policy "p" failed: its decision could not be read: Error: trap',
    });
  });

  test('a policy that changes what it was given changes nothing outside', () => {
    const call = { ...transferCall, arguments: { amount: 1, to: 'x' } };
    const params = { limit: 5 };
    apply(
      (given, givenParams) => {
        (given.arguments as { amount: number }).amount = 999;
        givenParams.limit = 0;
        return { decision: 'approve' };
      },
      params,
      call,
    );
    expect(call.arguments).toEqual({ amount: 1, to: 'x' });
    expect(params).toEqual({ limit: 5 });
  });

  test('an unregistered name denies the call (the run refuses it at start; this is the last guard)', () => {
    expect(applyApprovalPolicy('gone', createApprovalPolicyRegistry(), transferCall, {}, transferParameters)).toEqual({
      decision: 'deny',
      reason: 'approval policy "gone" failed: no policy of that name is registered on this worker',
    });
  });

  test('a long reason is cut', () => {
    const outcome = apply(() => ({ decision: 'deny', reason: 'r'.repeat(APPROVAL_POLICY_REASON_CHARS + 50) }));
    expect(outcome).toEqual({ decision: 'deny', reason: `${'r'.repeat(APPROVAL_POLICY_REASON_CHARS)}…` });
  });

  test('without a tool schema any JSON object is accepted as a modification', () => {
    const registry = createApprovalPolicyRegistry({ p: () => ({ decision: 'modify', arguments: { anything: true } }) });
    expect(applyApprovalPolicy('p', registry, transferCall, {}, undefined)).toEqual({
      decision: 'modify',
      arguments: { anything: true },
    });
  });
});

describe('approval input with a policy', () => {
  const base = { tools: ['write_file', 'read_file'], message: 'hi' };

  test('with a policy and no tool list, every call needs approval (the policy sees every call)', () => {
    const parsed = parseAgentInput({ ...base, approval: { policy: 'p', params: { limit: 3 } } });
    expect(parsed).toMatchObject({
      ok: true,
      input: { approval: { policy: 'p', params: { limit: 3 }, tools: 'all', onTimeout: 'deny' } },
    });
  });

  test('a tool list with a policy narrows it; without a policy the list still defaults to none', () => {
    expect(parseAgentInput({ ...base, approval: { policy: 'p', tools: ['write_file'] } })).toMatchObject({
      ok: true,
      input: { approval: { policy: 'p', tools: ['write_file'] } },
    });
    expect(parseAgentInput({ ...base, approval: {} })).toMatchObject({ ok: true, input: { approval: { tools: [] } } });
  });

  test('params without a policy, or an empty policy name, are refused', () => {
    expect(parseAgentInput({ ...base, approval: { params: { limit: 3 } } })).toEqual({
      ok: false,
      problems: ['approval.params: params are for an approval policy; give `policy` too'],
    });
    expect(parseAgentInput({ ...base, approval: { policy: '' } })).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/^approval\.policy: Too small/)],
    });
  });
});

describe('toolAsksForApproval', () => {
  const call: ToolCall = { id: 'call-1-1', type: 'function', function: { name: 'transfer', arguments: '{}' } };
  const tool = (mode: ToolDescription['needsApproval']): ToolDescription => ({
    name: 'transfer',
    description: 'Transfer money.',
    parameters: transferParameters,
    terminating: false,
    needsApproval: mode,
  });

  test('an "always" tool and a flagged call ask; a listed "never" tool needs approval without asking', () => {
    expect(toolAsksForApproval(call, tool('always'), new Set())).toBe(true);
    expect(toolAsksForApproval(call, tool('dynamic'), new Set(['call-1-1']))).toBe(true);
    expect(toolAsksForApproval(call, tool('dynamic'), new Set())).toBe(false);
    expect(toolAsksForApproval(call, tool('never'), new Set())).toBe(false);
    expect(needsApproval(call, tool('never'), { tools: 'all', onTimeout: 'deny', policy: 'p' }, new Set())).toBe(true);
  });
});
