import { ApplicationFailure } from '@temporalio/common';
import { fallsBack } from '../../src/activities/endpoint-fallback';
import { requestFields } from '../../src/activities/endpoint-request';
import { endpointTable, priceName, routeOf, routesOf } from '../../src/activities/model-routes';
import { FailureType } from '../../src/shared/failure-catalogue';
import type { ModelSettings } from '../../src/shared/model-settings';

/** Where a model call goes, which failures move it on, and what each endpoint is sent: pure rules. */

const SETTINGS: ModelSettings = {
  baseURL: 'http://default.test/v1',
  defaultModel: 'worker-model',
  endpoints: {
    vllm: { baseURL: 'http://vllm.test/v1', models: ['meta-llama/Llama-3.1-8B-Instruct', 'qwen'] },
    mirror: { baseURL: 'http://mirror.test/v1' },
    gemini: { baseURL: 'http://gemini.test/v1', defaultModel: 'gemini-2.5-flash' },
  },
};
const table = endpointTable(SETTINGS);
const where = (route: { endpoint: { name: string }; model: string }) => `${route.endpoint.name}:${route.model}`;

describe('routeOf', () => {
  test.each([
    [undefined, 'default:worker-model'],
    ['gpt-4o', 'default:gpt-4o'],
    ['vllm', 'vllm:meta-llama/Llama-3.1-8B-Instruct'],
    ['gemini', 'gemini:gemini-2.5-flash'],
    ['mirror', 'mirror:worker-model'],
    ['gemini/gemini-2.5-pro', 'gemini:gemini-2.5-pro'],
    // A model whose own name has a slash: listed by an endpoint, it goes there whole.
    ['meta-llama/Llama-3.1-8B-Instruct', 'vllm:meta-llama/Llama-3.1-8B-Instruct'],
    ['vllm/meta-llama/Llama-3.1-8B-Instruct', 'vllm:meta-llama/Llama-3.1-8B-Instruct'],
    ['qwen', 'vllm:qwen'],
    ['unknown/model', 'default:unknown/model'],
    ['vllm/', 'default:vllm/'],
  ])('%s goes to %s', (reference, expected) => {
    expect(where(routeOf(table, reference))).toBe(expected);
  });

  test('the default endpoint may be a named one', () => {
    const named = endpointTable({ ...SETTINGS, defaultEndpoint: 'gemini' });
    expect(where(routeOf(named, undefined))).toBe('gemini:gemini-2.5-flash');
  });

  test('refuses a table whose default endpoint is missing or whose names take `default`', () => {
    expect(() => endpointTable({ ...SETTINGS, defaultEndpoint: 'nowhere' })).toThrow('"nowhere" is not one');
    expect(() => endpointTable({ ...SETTINGS, endpoints: { default: {} } })).toThrow('give the endpoint another name');
  });
});

describe('routesOf', () => {
  test("the run's model, then each fallback; one naming only an endpoint without a default keeps the model", () => {
    expect(routesOf(table, 'qwen', ['mirror', 'gemini', 'default/gpt-4o']).map(where)).toEqual([
      'vllm:qwen',
      'mirror:qwen',
      'gemini:gemini-2.5-flash',
      'default:gpt-4o',
    ]);
  });

  test('a fallback that names no endpoint is ModelCall.UnknownEndpoint, not retried', () => {
    let failure: unknown;
    try {
      routesOf(table, undefined, ['gpt-4o']);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: FailureType.modelCallUnknownEndpoint, nonRetryable: true });
  });
});

describe('fallsBack', () => {
  test.each([
    [FailureType.modelCallConnectionError, true],
    [FailureType.modelCallConnectionTimeout, true],
    [FailureType.modelCallRequestTimeout, true],
    [FailureType.modelCallRateLimited, true],
    [FailureType.modelCallQuotaExceeded, true],
    [FailureType.modelCallServerError, true],
    [FailureType.modelCallBadRequest, false],
    [FailureType.modelCallContextOverflow, false],
    [FailureType.modelCallUnauthorized, false],
    [FailureType.modelCallNotFound, false],
    [FailureType.modelCallInvalidResponse, false],
    [FailureType.modelCallStreamInterrupted, false],
  ])('%s: %s', (type, expected) => {
    expect(fallsBack(ApplicationFailure.create({ type, message: 'x' }))).toBe(expected);
  });

  test('anything but a classified failure stays where it is', () => {
    expect(fallsBack(new Error('ECONNREFUSED'))).toBe(false);
  });
});

describe('priceName', () => {
  test('prefers `<endpoint>/<model>` when the table prices it so', () => {
    const route = routeOf(table, 'vllm/qwen');
    const price = { inputPerMTok: 1, outputPerMTok: 1 };
    expect([priceName({ 'vllm/qwen': price, qwen: price }, route), priceName({ qwen: price }, route)]).toEqual([
      'vllm/qwen',
      'qwen',
    ]);
  });
});

describe('requestFields', () => {
  const tools = [{ type: 'function' as const, function: { name: 't', parameters: {} } }];
  const input = {
    parallelToolCalls: true,
    sampling: { maxTokens: 100 },
    responseFormat: { type: 'json_schema' as const, json_schema: { name: 'answer', schema: { type: 'object' } } },
  };

  test('by default: parallel_tool_calls, the schema, max_tokens and usage in the stream', () => {
    expect(requestFields({}, {}, input, tools, true)).toEqual({
      tools,
      parallel_tool_calls: true,
      response_format: input.responseFormat,
      max_tokens: 100,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  test('each endpoint setting leaves out or changes what that endpoint refuses', () => {
    const endpoint = {
      parallelToolCalls: false,
      responseFormat: 'json_object' as const,
      maxTokensField: 'max_completion_tokens' as const,
      streamUsage: false,
    };
    expect(requestFields({}, endpoint, input, tools, true)).toEqual({
      tools,
      response_format: { type: 'json_object' },
      max_completion_tokens: 100,
      stream: true,
    });
    expect(requestFields({}, { responseFormat: 'none' }, input, [], false)).toEqual({ max_tokens: 100 });
  });
});
