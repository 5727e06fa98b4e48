import { COMPACTION_DEFAULTS, DEFAULT_COMPACTION_INSTRUCTIONS } from '../../src/shared/defaults/context-control';
import { parseAgentInput } from '../../src/shared/agent-input';

/** `compaction` in a run's input: its defaults, and every bound named when broken. */

const base = { tools: [], message: 'go' };

describe('the compaction input', () => {
  test('is off unless given; given, the defaults fill in', () => {
    const without = parseAgentInput(base);
    expect(without.ok && without.input.compaction).toBeUndefined();
    const parsed = parseAgentInput({ ...base, compaction: { maxTokens: 8_000 } });
    expect(parsed.ok && parsed.input.compaction).toEqual({
      maxTokens: 8_000,
      keepRecentIterations: COMPACTION_DEFAULTS.keepRecentIterations,
      instructions: DEFAULT_COMPACTION_INSTRUCTIONS,
    });
  });

  test.each([
    ['no maxTokens', {}, 'compaction.maxTokens: Invalid input: expected number, received undefined'],
    ['maxTokens below the least', { maxTokens: 255 }, 'compaction.maxTokens: maxTokens must be at least 256'],
    ['maxTokens past the most', { maxTokens: 10_000_001 }, 'compaction.maxTokens: maxTokens must be at most 10000000'],
    ['maxTokens not whole', { maxTokens: 1000.5 }, 'compaction.maxTokens: maxTokens must be a whole number'],
    [
      'keeping no iteration',
      { maxTokens: 1000, keepRecentIterations: 0 },
      'compaction.keepRecentIterations: keepRecentIterations must be at least 1: the model needs its last answer and results as they were',
    ],
    [
      'keeping too many',
      { maxTokens: 1000, keepRecentIterations: 1001 },
      'compaction.keepRecentIterations: keepRecentIterations must be at most 1000',
    ],
    [
      'empty instructions',
      { maxTokens: 1000, instructions: '' },
      'compaction.instructions: Too small: expected string to have >=1 characters',
    ],
    [
      'instructions past 64 Ki characters',
      { maxTokens: 1000, instructions: 'x'.repeat(64 * 1024 + 1) },
      'compaction.instructions: Too big: expected string to have <=65536 characters',
    ],
    [
      'a model name past 1,024 characters',
      { maxTokens: 1000, model: 'm'.repeat(1025) },
      'compaction.model: Too big: expected string to have <=1024 characters',
    ],
    ['an unknown field', { maxTokens: 1000, keepIterations: 2 }, 'compaction: Unrecognized key: "keepIterations"'],
    ['not an object', 'yes', 'compaction: Invalid input: expected object, received string'],
  ])('%s is refused, naming the field', (_name, compaction, problem) => {
    const parsed = parseAgentInput({ ...base, compaction });
    expect(parsed.ok ? [] : parsed.problems).toContain(problem);
  });
});
