import { z } from 'zod';
import type { AgentResult } from '../../src/shared/agent-result';
import { parseAgentInput } from '../../src/shared/agent-input';
import { OUTPUT_DEFAULTS } from '../../src/shared/defaults/output';
import { answerParameters, checkAnswerText, schemaProblems } from '../../src/shared/output-schema';
import { outputSchema, type OutputOf } from '../../src/shared/typed-output';
import type { AgentRunResult } from '../../src/client';

/** True only when `A` and `B` are the same type: a failed check does not compile (ts-jest type-checks this file). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | undefined {
  return undefined;
}

const Weather = z.object({ city: z.string(), celsius: z.number(), note: z.string().optional() });

describe('outputSchema (the zod helper)', () => {
  test("types runAgent's output as the schema's output type, and a plain spec as unknown", () => {
    const spec = outputSchema(Weather);
    type Typed = { tools: string[]; message: string; output: typeof spec };
    assertType<Equal<OutputOf<Typed>, { city: string; celsius: number; note?: string | undefined }>>();
    assertType<Equal<AgentRunResult<Typed>['output'], z.infer<typeof Weather>>>();
    type Plain = { tools: string[]; message: string; output: { schema: Record<string, unknown> } };
    assertType<Equal<AgentRunResult<Plain>['output'], unknown>>();
    type Without = { tools: string[]; message: string };
    assertType<Equal<AgentRunResult<Without>, AgentResult & { workflowId: string; runId: string }>>();
    // @ts-expect-error: the answer's fields are typed; a wrong one does not compile
    const wrong: AgentRunResult<Typed>['output']['city'] = 3;
    expect(wrong).toBe(3);
    // The spec is plain JSON: the JSON Schema zod makes, and the options.
    expect(JSON.parse(JSON.stringify(spec))).toEqual({ schema: z.toJSONSchema(Weather) });
    expect(outputSchema(Weather, { mode: 'response_format', name: 'weather' })).toMatchObject({
      mode: 'response_format',
      name: 'weather',
    });
  });

  test('a spec from the helper is a valid run input; the defaults apply', () => {
    const parsed = parseAgentInput({ tools: [], message: 'go', output: outputSchema(Weather) });
    expect(parsed.ok && parsed.input.output).toMatchObject({
      name: 'final_answer',
      mode: 'tool',
      maxCorrections: OUTPUT_DEFAULTS.maxCorrections,
    });
  });
});

describe('the output schema checked at start', () => {
  test.each([
    ['a wrong type name', { type: 'text' }, '#/type'],
    ['a required that is not a list of names', { type: 'object', required: 'a' }, '#/required'],
    ['a pattern that does not compile', { type: 'string', pattern: '([a-z' }, '#/pattern'],
    ['a remote $ref', { $ref: 'https://example.com/schema.json' }, 'does not resolve'],
    ['a local $ref to nothing', { type: 'object', properties: { a: { $ref: '#/$defs/nothing' } } }, 'does not resolve'],
    ['a subschema that is not one', { type: 'object', properties: { a: 3 } }, '#/properties/a'],
    ['an empty anyOf', { anyOf: [] }, '#/anyOf'],
    ['a negative count', { type: 'array', minItems: -1 }, '#/minItems'],
  ])('refuses %s', (_name, schema, expected) => {
    expect(schemaProblems(schema)).toEqual([expect.stringContaining(expected)]);
  });

  test('refuses a schema over the size bound, and names its size', () => {
    const schema = { type: 'object', description: 'x'.repeat(OUTPUT_DEFAULTS.schemaBytes) };
    expect(schemaProblems(schema)).toEqual([expect.stringContaining(`at most ${OUTPUT_DEFAULTS.schemaBytes}`)]);
  });

  test('accepts what zod makes, references and recursion included', () => {
    const Node: z.ZodType<{ name: string; children: unknown[] }> = z.object({
      name: z.string(),
      get children() {
        return z.array(Node);
      },
    });
    expect(schemaProblems(z.toJSONSchema(z.object({ root: Node })) as Record<string, unknown>)).toEqual([]);
    expect(schemaProblems(z.toJSONSchema(Weather) as Record<string, unknown>)).toEqual([]);
  });

  test('the run input names the field: output.schema, and an answer tool that shadows a run tool', () => {
    const parsed = parseAgentInput({ tools: ['final_answer'], message: 'go', output: { schema: { type: 'nope' } } });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^output\.schema: schema #\/type/),
        expect.stringMatching(/^output\.name: "final_answer" is the tool the model answers with/),
      ]),
    );
  });
});

describe('an answer checked', () => {
  const schema = z.toJSONSchema(Weather) as Record<string, unknown>;

  test('valid JSON passes as its value; problems name the place and not the levels above it', () => {
    expect(checkAnswerText(schema, '{"city":"Oslo","celsius":4}', false)).toEqual({
      ok: true,
      value: { city: 'Oslo', celsius: 4 },
    });
    const checked = checkAnswerText(schema, '{"city":1,"extra":true}', false);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.problems).toEqual([
      '#: Instance does not have required property "celsius".',
      '#/city: Instance type "number" is invalid. Expected "string".',
      '#: Property "extra" does not match additional properties schema.',
    ]);
  });

  test('text that is not JSON is a problem, not a throw', () => {
    expect(checkAnswerText(schema, 'The weather is fine.', false)).toMatchObject({
      ok: false,
      problems: [expect.stringContaining('not JSON')],
    });
  });

  test('a non-object schema is offered wrapped in { value } (its $defs at the root) and unwrapped on the way back', () => {
    const list = z.toJSONSchema(z.array(z.string())) as Record<string, unknown>;
    expect(answerParameters(list)).toEqual({
      type: 'object',
      properties: { value: { type: 'array', items: { type: 'string' } } },
      required: ['value'],
      additionalProperties: false,
    });
    expect(checkAnswerText(list, '{"value":["a"]}', true)).toEqual({ ok: true, value: ['a'] });
    expect(checkAnswerText(list, '["a"]', true)).toMatchObject({ ok: false });
    const withDefs = { $defs: { s: { type: 'string' } }, type: 'array', items: { $ref: '#/$defs/s' } };
    expect(answerParameters(withDefs)).toMatchObject({ $defs: { s: { type: 'string' } } });
  });

  test('checking does not change the schema it reads', () => {
    const plain = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
    checkAnswerText(plain, '{"city":"x","celsius":1}', false);
    // The validator marks what it reads with hidden properties; it reads a copy.
    expect(Object.getOwnPropertyNames(plain)).toEqual(Object.keys(plain));
    expect(Object.getOwnPropertyNames(plain.properties)).toEqual(['city', 'celsius', 'note']);
  });
});
