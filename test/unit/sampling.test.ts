import { loadModelConfig } from '../../src/config/model';
import { ConfigError } from '../../src/config/config-error';
import { samplingFields } from '../../src/activities/sampling-request';
import { mergeSampling, samplingSettingsSchema, sideCallSampling, withoutToolChoice } from '../../src/shared/sampling';
import { childInput } from '../../src/workflows/rules/nested-agents';
import { defineAgentTool } from '../../src/tools/define-agent-tool';

describe('sampling settings', () => {
  test("a run's settings override the worker's field by field; none at all is undefined", () => {
    expect(mergeSampling({ maxTokens: 300, temperature: 0.5 }, { temperature: 0, seed: 1 })).toEqual({
      maxTokens: 300,
      temperature: 0,
      seed: 1,
    });
    expect(mergeSampling(undefined, undefined)).toBeUndefined();
    expect(mergeSampling({ maxTokens: undefined }, {})).toBeUndefined();
  });

  test('the request fields: the cap under the worker’s field, tool_choice only with tools', () => {
    const worker = { sampling: { maxTokens: 300 } };
    expect(samplingFields(worker, { topP: 0.5, stop: ['x'], toolChoice: 'none' }, true)).toEqual({
      max_tokens: 300,
      top_p: 0.5,
      stop: ['x'],
      tool_choice: 'none',
    });
    expect(
      samplingFields({ ...worker, maxTokensField: 'max_completion_tokens' }, { toolChoice: 'required' }, false),
    ).toEqual({
      max_completion_tokens: 300,
    });
    expect(samplingFields({}, undefined, true)).toEqual({});
  });

  test('side calls and nested agents take all but toolChoice', () => {
    expect(withoutToolChoice({ toolChoice: 'required' })).toBeUndefined();
    expect(withoutToolChoice({ toolChoice: 'required', temperature: 1 })).toEqual({ temperature: 1 });
    expect(sideCallSampling({})).toEqual({});
    expect(sideCallSampling({ modelSettings: { maxTokens: 5, toolChoice: 'auto' } })).toEqual({
      sampling: { maxTokens: 5 },
    });
    const spec = { kind: 'agent' as const, instructions: 'i', tools: [] };
    const parent = { depth: 0, maxDepth: 3, modelSettings: { seed: 3, toolChoice: 'required' as const } };
    expect(childInput(spec, 't', parent, {}).modelSettings).toEqual({ seed: 3 });
    expect(childInput({ ...spec, modelSettings: { seed: 9 } }, 't', parent, {}).modelSettings).toEqual({ seed: 9 });
    expect(childInput(spec, 't', { depth: 0, maxDepth: 3 }, {})).not.toHaveProperty('modelSettings');
  });

  test('bounds: temperature 0..2, topP in (0, 1], at most 4 stop sequences, known fields only', () => {
    expect(samplingSettingsSchema.safeParse({ temperature: 2, topP: 1, stop: ['a', 'b', 'c', 'd'] }).success).toBe(
      true,
    );
    for (const wrong of [
      { temperature: 2.1 },
      { topP: 0 },
      { stop: ['a', 'b', 'c', 'd', 'e'] },
      { maxTokens: 1.5 },
      { n: 2 },
    ])
      expect(samplingSettingsSchema.safeParse(wrong).success).toBe(false);
    expect(() =>
      defineAgentTool({ name: 'a', description: 'd', instructions: 'i', tools: [], modelSettings: { topP: 2 } }),
    ).toThrow(/Agent tool "a": modelSettings: topP/);
  });

  test('the worker reads AGENT_MODEL_* into its sampling settings, and refuses values out of bounds', () => {
    expect(
      loadModelConfig({
        OPENAI_BASE_URL: 'http://localhost:8080/v1',
        AGENT_MODEL_MAX_TOKENS: '512',
        AGENT_MODEL_TEMPERATURE: '0.2',
        AGENT_MODEL_TOP_P: '0.95',
        AGENT_MODEL_SEED: '42',
        AGENT_MODEL_MAX_TOKENS_FIELD: 'max_completion_tokens',
      }),
    ).toMatchObject({
      sampling: { maxTokens: 512, temperature: 0.2, topP: 0.95, seed: 42 },
      maxTokensField: 'max_completion_tokens',
    });
    expect(loadModelConfig({ OPENAI_BASE_URL: 'http://localhost:8080/v1' })).not.toHaveProperty('sampling');
    expect(() => loadModelConfig({ OPENAI_BASE_URL: 'http://x/v1', AGENT_MODEL_TEMPERATURE: '5' })).toThrow(
      ConfigError,
    );
    expect(() =>
      loadModelConfig({ OPENAI_BASE_URL: 'http://x/v1', AGENT_MODEL_MAX_TOKENS_FIELD: 'n_predict' }),
    ).toThrow(/AGENT_MODEL_MAX_TOKENS_FIELD/);
  });
});
