import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, configuredSecrets, loadModelConfig } from '../../src/config';

/** `AGENT_MODEL_ENDPOINTS` and its neighbours, read the one place the worker reads its model settings. */

const ENDPOINTS = JSON.stringify({
  llama: { baseURL: 'http://127.0.0.1:8080/v1', models: ['smollm2'] },
  anthropic: {
    baseURL: 'https://api.anthropic.com/v1/',
    apiKeyEnv: 'ANTHROPIC_API_KEY',
    parallelToolCalls: false,
    responseFormat: 'none',
  },
});

describe('loadModelConfig with named endpoints', () => {
  test('keeps the single-endpoint settings as they were, and adds the endpoints with their keys from the environment', () => {
    const config = loadModelConfig({
      OPENAI_BASE_URL: 'http://localhost:11434/v1',
      AGENT_MODEL_ENDPOINTS: ENDPOINTS,
      ANTHROPIC_API_KEY: 'sk-ant-test-key',
    });

    expect({ baseURL: config.baseURL, defaultEndpoint: config.defaultEndpoint, endpoints: config.endpoints }).toEqual({
      baseURL: 'http://localhost:11434/v1',
      defaultEndpoint: undefined,
      endpoints: {
        llama: { baseURL: 'http://127.0.0.1:8080/v1', models: ['smollm2'] },
        anthropic: {
          baseURL: 'https://api.anthropic.com/v1/',
          apiKey: 'sk-ant-test-key',
          parallelToolCalls: false,
          responseFormat: 'none',
        },
      },
    });
  });

  test('without OPENAI_* the first named endpoint is the default, with its model, so no OpenAI key is needed', () => {
    const config = loadModelConfig({ AGENT_MODEL_ENDPOINTS: ENDPOINTS, ANTHROPIC_API_KEY: 'k' });

    expect({ defaultEndpoint: config.defaultEndpoint, defaultModel: config.defaultModel }).toEqual({
      defaultEndpoint: 'llama',
      defaultModel: 'smollm2',
    });
    expect(
      loadModelConfig({ AGENT_MODEL_ENDPOINTS: ENDPOINTS, ANTHROPIC_API_KEY: 'k', OPENAI_MODEL: 'x' }).defaultModel,
    ).toBe('x');
  });

  test('reads the same JSON from AGENT_MODEL_ENDPOINTS_FILE', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'endpoints-')), 'endpoints.json');
    writeFileSync(file, ENDPOINTS);

    const config = loadModelConfig({
      AGENT_MODEL_ENDPOINTS_FILE: file,
      ANTHROPIC_API_KEY: 'k',
      AGENT_MODEL_DEFAULT_ENDPOINT: 'anthropic',
    });

    expect({ defaultEndpoint: config.defaultEndpoint, names: Object.keys(config.endpoints ?? {}) }).toEqual({
      defaultEndpoint: 'anthropic',
      names: ['llama', 'anthropic'],
    });
  });

  test.each([
    [{ AGENT_MODEL_ENDPOINTS: '{not json' }, 'AGENT_MODEL_ENDPOINTS: not JSON'],
    [{ AGENT_MODEL_ENDPOINTS: ENDPOINTS }, 'takes its key from ANTHROPIC_API_KEY, which is not set'],
    [{ AGENT_MODEL_ENDPOINTS: '{"default": {"baseURL": "http://x/v1"}}' }, '"default" is the name of the endpoint'],
    [{ AGENT_MODEL_ENDPOINTS: '{"a/b": {}}' }, 'an endpoint name is letters, digits'],
    [{ AGENT_MODEL_ENDPOINTS: '{"a": {"maxTokens": 5}}' }, 'maxTokens'],
    [{ AGENT_MODEL_ENDPOINTS: '{"a": {"baseURL": "http://u:p@x/v1"}}' }, 'has credentials in it'],
    [{ OPENAI_API_KEY: 'k', AGENT_MODEL_DEFAULT_ENDPOINT: 'nowhere' }, 'AGENT_MODEL_DEFAULT_ENDPOINT="nowhere"'],
    [{ AGENT_MODEL_ENDPOINTS: '{}', AGENT_MODEL_ENDPOINTS_FILE: '/x' }, 'not both'],
  ])('refuses %j', (env, message) => {
    expect(() => loadModelConfig(env)).toThrow(ConfigError);
    expect(() => loadModelConfig(env)).toThrow(message);
  });
});

describe('configuredSecrets', () => {
  test("holds every named endpoint's key", () => {
    expect(
      configuredSecrets({ OPENAI_API_KEY: 'k', AGENT_MODEL_ENDPOINTS: ENDPOINTS, ANTHROPIC_API_KEY: 'sk-ant-secret' }),
    ).toContain('sk-ant-secret');
  });
});
