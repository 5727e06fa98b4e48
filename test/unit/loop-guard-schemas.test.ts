import { type z } from 'zod';
import {
  circuitBreakerSchema,
  loopDetectionSchema,
  maskingSchema,
  resultProcessingSchema,
} from '../../src/shared/loop-guard-schemas';

/** `path: message` for each problem, failing the test when `input` parses. */
function problemsOf(schema: z.ZodType, input: unknown): string[] {
  const parsed = schema.safeParse(input);
  if (parsed.success) throw new Error(`expected problems, but the input parsed: ${JSON.stringify(parsed.data)}`);
  return parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || 'input'}: ${issue.message}`);
}

describe('loopDetectionSchema', () => {
  test('defaults to threshold 3 and warn', () => {
    expect(loopDetectionSchema.parse({})).toEqual({ threshold: 3, action: 'warn' });
  });

  test('keeps explicit values', () => {
    expect(loopDetectionSchema.parse({ threshold: 2, action: 'inject_warning' })).toEqual({
      threshold: 2,
      action: 'inject_warning',
    });
    expect(loopDetectionSchema.parse({ action: 'stop' })).toEqual({ threshold: 3, action: 'stop' });
  });

  test('rejects a threshold of 1', () => {
    expect(problemsOf(loopDetectionSchema, { threshold: 1 })).toEqual([
      'threshold: threshold must be at least 2: one call is not a loop',
    ]);
  });

  test('rejects a fractional threshold', () => {
    expect(problemsOf(loopDetectionSchema, { threshold: 2.5 })).toEqual([
      'threshold: threshold must be a whole number',
    ]);
  });

  test('rejects an unknown action, naming the field', () => {
    const [problem] = problemsOf(loopDetectionSchema, { action: 'panic' });

    expect(problem).toMatch(/^action: /);
    expect(problem).toContain('inject_warning');
  });

  test('rejects an unknown key (strict)', () => {
    const [problem] = problemsOf(loopDetectionSchema, { treshold: 3 });

    expect(problem).toMatch(/^input: /);
    expect(problem).toContain('treshold');
  });
});

describe('circuitBreakerSchema', () => {
  test('defaults to threshold 5', () => {
    expect(circuitBreakerSchema.parse({})).toEqual({ threshold: 5 });
  });

  test('accepts threshold 1', () => {
    expect(circuitBreakerSchema.parse({ threshold: 1 })).toEqual({ threshold: 1 });
  });

  test('rejects threshold 0', () => {
    expect(problemsOf(circuitBreakerSchema, { threshold: 0 })).toEqual(['threshold: threshold must be at least 1']);
  });

  test('rejects a threshold given as text', () => {
    expect(problemsOf(circuitBreakerSchema, { threshold: '5' })[0]).toMatch(/^threshold: /);
  });

  test('rejects an unknown key (strict)', () => {
    expect(problemsOf(circuitBreakerSchema, { threshold: 5, cooldown: 1 })[0]).toContain('cooldown');
  });
});

describe('resultProcessingSchema', () => {
  test('an empty block is valid and invents nothing', () => {
    expect(resultProcessingSchema.parse({})).toEqual({});
  });

  test('keeps a global and per-tool limits', () => {
    const config = { maxResultChars: 20_000, perTool: { read_file: 50_000, shell: 4_000 } };

    expect(resultProcessingSchema.parse(config)).toEqual(config);
  });

  test('rejects a zero global limit', () => {
    expect(problemsOf(resultProcessingSchema, { maxResultChars: 0 })).toEqual([
      'maxResultChars: a character limit must be above 0',
    ]);
  });

  test('rejects a fractional global limit', () => {
    expect(problemsOf(resultProcessingSchema, { maxResultChars: 10.5 })).toEqual([
      'maxResultChars: a character limit must be a whole number',
    ]);
  });

  test('rejects a bad per-tool limit with the tool in the path', () => {
    expect(problemsOf(resultProcessingSchema, { perTool: { read_file: 100, shell: -1 } })).toEqual([
      'perTool.shell: a character limit must be above 0',
    ]);
  });

  test('rejects an empty tool name', () => {
    expect(problemsOf(resultProcessingSchema, { perTool: { '': 100 } })).toEqual([
      'perTool: a tool name must not be empty',
    ]);
  });

  test('rejects an unknown key (strict)', () => {
    expect(problemsOf(resultProcessingSchema, { maxChars: 10 })[0]).toContain('maxChars');
  });

  test('keeps the extractor and the cacher, each optional', () => {
    const config = {
      maxResultChars: 100_000,
      extractThreshold: 20_000,
      extractModel: 'cheap',
      extractInstructions: 'Keep the numbers.',
      inlineThreshold: 4_000,
    };
    expect(resultProcessingSchema.parse(config)).toEqual(config);
    expect(resultProcessingSchema.parse({ inlineThreshold: 1 })).toEqual({ inlineThreshold: 1 });
  });

  test('rejects thresholds that are not whole positive numbers, and an empty extractor model', () => {
    expect(problemsOf(resultProcessingSchema, { extractThreshold: 0, inlineThreshold: 2.5, extractModel: '' })).toEqual(
      [
        'extractThreshold: a character limit must be above 0',
        'extractModel: Too small: expected string to have >=1 characters',
        'inlineThreshold: a character limit must be a whole number',
      ],
    );
  });
});

describe('maskingSchema', () => {
  test('defaults to keepIterations 2 and minTokens 500', () => {
    expect(maskingSchema.parse({})).toEqual({ keepIterations: 2, minTokens: 500 });
  });

  test('keeps explicit values at their minimum', () => {
    expect(maskingSchema.parse({ keepIterations: 1, minTokens: 1 })).toEqual({ keepIterations: 1, minTokens: 1 });
  });

  test('rejects keepIterations 0 and minTokens 0, each with its path', () => {
    expect(problemsOf(maskingSchema, { keepIterations: 0, minTokens: 0 })).toEqual([
      'keepIterations: keepIterations must be at least 1',
      'minTokens: minTokens must be at least 1',
    ]);
  });

  test('rejects fractional values', () => {
    expect(problemsOf(maskingSchema, { minTokens: 0.5 })).toEqual(['minTokens: minTokens must be a whole number']);
  });

  test('rejects an unknown key (strict)', () => {
    expect(problemsOf(maskingSchema, { keep: 2 })[0]).toContain('keep');
  });
});
