import { type RunLimits } from '../../src/shared/control';
import { type Usage, ZERO_USAGE } from '../../src/shared/messages';
import { applyLimitChange, findLimitBreach } from '../../src/workflows/rules/limit-rules';

const usage = (promptTokens: number, completionTokens: number): Usage => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
});

describe('findLimitBreach', () => {
  const allBudgets: RunLimits = {
    maxInvocations: 10,
    tokenBudget: { maxTotal: 1_000, maxPrompt: 700, maxCompletion: 400 },
  };

  test('under every limit there is no breach', () => {
    expect(findLimitBreach(9, usage(600, 300), allBudgets)).toBeUndefined();
  });

  test('a fresh run with no usage is not breached', () => {
    expect(findLimitBreach(0, ZERO_USAGE, allBudgets)).toBeUndefined();
  });

  test('invocations equal to maxInvocations breach the invocation cap', () => {
    expect(findLimitBreach(10, ZERO_USAGE, allBudgets)).toEqual({ kind: 'invocations', limit: 10 });
  });

  test('invocations above maxInvocations breach the invocation cap', () => {
    expect(findLimitBreach(12, ZERO_USAGE, allBudgets)).toEqual({ kind: 'invocations', limit: 10 });
  });

  test('the invocation cap is reported before any token budget', () => {
    expect(findLimitBreach(10, usage(5_000, 5_000), allBudgets)).toEqual({ kind: 'invocations', limit: 10 });
  });

  test('total tokens reaching maxTotal exactly is a breach', () => {
    const limits: RunLimits = { maxInvocations: 10, tokenBudget: { maxTotal: 1_000 } };

    expect(findLimitBreach(1, usage(600, 400), limits)).toEqual({
      kind: 'tokens',
      measure: 'total',
      used: 1_000,
      limit: 1_000,
    });
  });

  test('total tokens one below maxTotal is not a breach', () => {
    const limits: RunLimits = { maxInvocations: 10, tokenBudget: { maxTotal: 1_000 } };

    expect(findLimitBreach(1, usage(600, 399), limits)).toBeUndefined();
  });

  test('total tokens above maxTotal is a breach with the tokens used', () => {
    const limits: RunLimits = { maxInvocations: 10, tokenBudget: { maxTotal: 1_000 } };

    expect(findLimitBreach(1, usage(900, 350), limits)).toEqual({
      kind: 'tokens',
      measure: 'total',
      used: 1_250,
      limit: 1_000,
    });
  });

  test('prompt tokens reaching maxPrompt exactly is a breach', () => {
    const limits: RunLimits = { maxInvocations: 10, tokenBudget: { maxPrompt: 700 } };

    expect(findLimitBreach(1, usage(700, 0), limits)).toEqual({
      kind: 'tokens',
      measure: 'prompt',
      used: 700,
      limit: 700,
    });
  });

  test('prompt tokens above maxPrompt is a breach', () => {
    const limits: RunLimits = { maxInvocations: 10, tokenBudget: { maxPrompt: 700 } };

    expect(findLimitBreach(1, usage(701, 50), limits)).toEqual({
      kind: 'tokens',
      measure: 'prompt',
      used: 701,
      limit: 700,
    });
  });

  test('completion tokens reaching maxCompletion exactly is a breach', () => {
    const limits: RunLimits = { maxInvocations: 10, tokenBudget: { maxCompletion: 400 } };

    expect(findLimitBreach(1, usage(10, 400), limits)).toEqual({
      kind: 'tokens',
      measure: 'completion',
      used: 400,
      limit: 400,
    });
  });

  test('completion tokens above maxCompletion is a breach', () => {
    const limits: RunLimits = { maxInvocations: 10, tokenBudget: { maxCompletion: 400 } };

    expect(findLimitBreach(1, usage(10, 450), limits)).toEqual({
      kind: 'tokens',
      measure: 'completion',
      used: 450,
      limit: 400,
    });
  });

  test('the total budget is reported before the prompt and completion budgets', () => {
    expect(findLimitBreach(1, usage(800, 500), allBudgets)).toEqual({
      kind: 'tokens',
      measure: 'total',
      used: 1_300,
      limit: 1_000,
    });
  });

  test('the prompt budget is reported before the completion budget', () => {
    const limits: RunLimits = { maxInvocations: 10, tokenBudget: { maxPrompt: 100, maxCompletion: 100 } };

    expect(findLimitBreach(1, usage(150, 150), limits)).toEqual({
      kind: 'tokens',
      measure: 'prompt',
      used: 150,
      limit: 100,
    });
  });

  test('a breached completion budget is found when the total and prompt budgets are not reached', () => {
    expect(findLimitBreach(1, usage(100, 450), allBudgets)).toEqual({
      kind: 'tokens',
      measure: 'completion',
      used: 450,
      limit: 400,
    });
  });

  test('absent budgets are ignored however many tokens were used', () => {
    const limits: RunLimits = { maxInvocations: 10, tokenBudget: {} };

    expect(findLimitBreach(9, usage(1_000_000, 1_000_000), limits)).toBeUndefined();
  });

  test('only the budgets present are checked', () => {
    const limits: RunLimits = { maxInvocations: 10, tokenBudget: { maxCompletion: 400 } };

    expect(findLimitBreach(1, usage(1_000_000, 399), limits)).toBeUndefined();
  });
});

describe('applyLimitChange', () => {
  const current: RunLimits = { maxInvocations: 10, tokenBudget: { maxTotal: 1_000, maxPrompt: 700 } };

  test('an empty change is refused', () => {
    expect(applyLimitChange({}, current, 3)).toEqual({
      ok: false,
      problem: 'input: give maxInvocations, tokenBudget or both',
    });
  });

  test('a number is refused as not an object', () => {
    expect(applyLimitChange(20, current, 3)).toEqual({
      ok: false,
      problem: 'input: Invalid input: expected object, received number',
    });
  });

  test('null is refused as not an object', () => {
    expect(applyLimitChange(null, current, 3)).toEqual({
      ok: false,
      problem: 'input: Invalid input: expected object, received null',
    });
  });

  test('an array is refused as not an object', () => {
    expect(applyLimitChange([20], current, 3)).toEqual({
      ok: false,
      problem: 'input: Invalid input: expected object, received array',
    });
  });

  test('zero maxInvocations is refused, naming maxInvocations', () => {
    expect(applyLimitChange({ maxInvocations: 0 }, current, 0)).toEqual({
      ok: false,
      problem: 'maxInvocations: Too small: expected number to be >0',
    });
  });

  test('negative maxInvocations is refused, naming maxInvocations', () => {
    expect(applyLimitChange({ maxInvocations: -5 }, current, 0)).toEqual({
      ok: false,
      problem: 'maxInvocations: Too small: expected number to be >0',
    });
  });

  test('fractional maxInvocations is refused, naming maxInvocations', () => {
    expect(applyLimitChange({ maxInvocations: 12.5 }, current, 3)).toEqual({
      ok: false,
      problem: 'maxInvocations: Invalid input: expected int, received number',
    });
  });

  test('maxInvocations given as a string is refused', () => {
    expect(applyLimitChange({ maxInvocations: '12' }, current, 3)).toEqual({
      ok: false,
      problem: 'maxInvocations: Invalid input: expected number, received string',
    });
  });

  test('an unknown key next to a valid change is refused', () => {
    expect(applyLimitChange({ maxInvocations: 12, maxMinutes: 5 }, current, 3)).toEqual({
      ok: false,
      problem: 'input: Unrecognized key: "maxMinutes"',
    });
  });

  test('an unknown key alone reports both the key and the missing change', () => {
    expect(applyLimitChange({ maxMinutes: 5 }, current, 3)).toEqual({
      ok: false,
      problem: 'input: Unrecognized key: "maxMinutes"; input: give maxInvocations, tokenBudget or both',
    });
  });

  test('an unknown token budget key is refused, naming tokenBudget', () => {
    expect(applyLimitChange({ tokenBudget: { maxCached: 5 } }, current, 3)).toEqual({
      ok: false,
      problem: 'tokenBudget: Unrecognized key: "maxCached"',
    });
  });

  test('a non-positive token budget is refused, naming its path', () => {
    expect(applyLimitChange({ tokenBudget: { maxTotal: 0 } }, current, 3)).toEqual({
      ok: false,
      problem: 'tokenBudget.maxTotal: Too small: expected number to be >0',
    });
  });

  test('maxInvocations below the invocations already made is refused', () => {
    expect(applyLimitChange({ maxInvocations: 3 }, current, 4)).toEqual({
      ok: false,
      problem:
        'maxInvocations 3 is below the 4 model calls already made; give at least 4 (which stops the run before its next call).',
    });
  });

  test('maxInvocations equal to the invocations already made is accepted', () => {
    expect(applyLimitChange({ maxInvocations: 4 }, current, 4)).toEqual({
      ok: true,
      limits: { maxInvocations: 4, tokenBudget: { maxTotal: 1_000, maxPrompt: 700 } },
    });
  });

  test('maxInvocations can be raised and the token budget is kept', () => {
    expect(applyLimitChange({ maxInvocations: 25 }, current, 4)).toEqual({
      ok: true,
      limits: { maxInvocations: 25, tokenBudget: { maxTotal: 1_000, maxPrompt: 700 } },
    });
  });

  test('maxInvocations can be lowered to above the invocations made', () => {
    expect(applyLimitChange({ maxInvocations: 5 }, current, 4)).toEqual({
      ok: true,
      limits: { maxInvocations: 5, tokenBudget: { maxTotal: 1_000, maxPrompt: 700 } },
    });
  });

  test('a token budget change is merged key by key and keeps maxInvocations', () => {
    expect(applyLimitChange({ tokenBudget: { maxTotal: 2_000, maxCompletion: 300 } }, current, 4)).toEqual({
      ok: true,
      limits: { maxInvocations: 10, tokenBudget: { maxTotal: 2_000, maxPrompt: 700, maxCompletion: 300 } },
    });
  });

  test('a token budget change is not checked against invocations', () => {
    expect(applyLimitChange({ tokenBudget: { maxPrompt: 50 } }, current, 40)).toEqual({
      ok: true,
      limits: { maxInvocations: 10, tokenBudget: { maxTotal: 1_000, maxPrompt: 50 } },
    });
  });

  test('both limits can change at once', () => {
    expect(applyLimitChange({ maxInvocations: 30, tokenBudget: { maxPrompt: 900 } }, current, 4)).toEqual({
      ok: true,
      limits: { maxInvocations: 30, tokenBudget: { maxTotal: 1_000, maxPrompt: 900 } },
    });
  });

  test('an empty token budget counts as a change and leaves the limits as they were', () => {
    expect(applyLimitChange({ tokenBudget: {} }, current, 4)).toEqual({
      ok: true,
      limits: { maxInvocations: 10, tokenBudget: { maxTotal: 1_000, maxPrompt: 700 } },
    });
  });

  test('the current limits are not modified', () => {
    applyLimitChange({ maxInvocations: 30, tokenBudget: { maxTotal: 5_000, maxCompletion: 100 } }, current, 4);

    expect(current).toEqual({ maxInvocations: 10, tokenBudget: { maxTotal: 1_000, maxPrompt: 700 } });
  });

  test('the new token budget is a new object', () => {
    const result = applyLimitChange({ maxInvocations: 30 }, current, 4);

    if (!result.ok) throw new Error(`expected an accepted change, got: ${result.problem}`);
    expect(result.limits.tokenBudget).not.toBe(current.tokenBudget);
  });
});
