import { loadModelConfig } from '../../src/config/model';
import { ConfigError } from '../../src/config/config-error';
import { OFFLINE_MODEL } from '../../src/shared/defaults/names';
import { OFFLINE_QUESTION, arithmeticIn, offlineAgent } from '../../src/scripted-model/offline-agent';
import type { ChatCompletionRequest } from '../../src/scripted-model/script';

describe('AGENT_OFFLINE', () => {
  test('1 needs no key, names the scripted model, and lists the model variables it ignores', () => {
    expect(loadModelConfig({ AGENT_OFFLINE: '1', AGENT_WORKSPACE: '/tmp/w' })).toEqual({
      defaultModel: OFFLINE_MODEL,
      workspace: '/tmp/w',
      offline: { ignored: [] },
    });
    const ignoring = loadModelConfig({ AGENT_OFFLINE: 'true', OPENAI_API_KEY: 'sk-x', OPENAI_MODEL: 'gpt-4o' });
    expect(ignoring.offline).toEqual({ ignored: ['OPENAI_API_KEY', 'OPENAI_MODEL'] });
    expect(ignoring.apiKey).toBeUndefined();
  });

  test('0 is a real model as before, and a bad value is named', () => {
    expect(() => loadModelConfig({ AGENT_OFFLINE: '0' })).toThrow(/No model is configured/);
    expect(() => loadModelConfig({ AGENT_OFFLINE: 'yes' })).toThrow(ConfigError);
    expect(() => loadModelConfig({ AGENT_OFFLINE: 'yes' })).toThrow(/AGENT_OFFLINE="yes": expected 1 or 0/);
  });
});

const tools = (...names: string[]) => names.map((name) => ({ type: 'function', function: { name } }));
const call = (id: string, name: string, args: unknown) => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
});

describe('the offline agent', () => {
  test('asks its question first, works the arithmetic out with calculator, then finishes with the answer', () => {
    const request: ChatCompletionRequest = {
      model: OFFLINE_MODEL,
      tools: tools('ask_question', 'calculator', 'finish'),
      messages: [{ role: 'user', content: 'What is 17 * 23?' }],
    };
    expect(offlineAgent(request)).toMatchObject({
      toolCalls: [{ name: 'ask_question', arguments: { question: OFFLINE_QUESTION } }],
    });
    request.messages.push(call('c1', 'ask_question', { question: OFFLINE_QUESTION }));
    request.messages.push({ role: 'tool', tool_call_id: 'c1', content: 'Asked the user.' });
    request.messages.push({ role: 'user', content: 'Show your working.' });
    expect(offlineAgent(request)).toEqual({
      toolCalls: [{ name: 'calculator', arguments: { expression: '17 * 23' } }],
    });
    request.messages.push(call('c2', 'calculator', { expression: '17 * 23' }));
    request.messages.push({ role: 'tool', tool_call_id: 'c2', content: '391' });
    expect(offlineAgent(request)).toEqual({
      toolCalls: [{ name: 'finish', arguments: { note: '17 * 23 = 391. You said: Show your working.' } }],
    });
  });

  test('without finish it answers in text; without a step for the task it says what it is', () => {
    const request: ChatCompletionRequest = {
      model: OFFLINE_MODEL,
      tools: tools('calculator'),
      messages: [
        { role: 'user', content: 'What is 2 + 3?' },
        call('c1', 'calculator', { expression: '2 + 3' }),
        { role: 'tool', tool_call_id: 'c1', content: '5' },
      ],
    };
    expect(offlineAgent(request)).toEqual({ content: '2 + 3 = 5.' });
    expect(offlineAgent({ model: OFFLINE_MODEL, messages: [{ role: 'user', content: 'Hello' }] })).toEqual({
      content: expect.stringContaining('I am the scripted offline model (AGENT_OFFLINE=1), not an LLM'),
    });
  });

  test("calls the example MCP server's elicitation tool, then quotes what it heard", () => {
    const request: ChatCompletionRequest = {
      model: OFFLINE_MODEL,
      tools: tools('everything__trigger-elicitation-request'),
      messages: [{ role: 'user', content: 'Ask me' }],
    };
    expect(offlineAgent(request)).toEqual({
      toolCalls: [{ name: 'everything__trigger-elicitation-request', arguments: {} }],
    });
    request.messages.push(call('c1', 'everything__trigger-elicitation-request', {}));
    request.messages.push({ role: 'tool', tool_call_id: 'c1', content: '- Name:\n Ada' });
    expect(offlineAgent(request)).toEqual({ content: "The server's question was answered: - Name: Ada" });
  });

  test('arithmetic is found in a sentence, and a lone number is not arithmetic', () => {
    expect(arithmeticIn('What is (2 + 3) * 4 ^ 2? Thanks')).toBe('(2 + 3) * 4 ^ 2');
    expect(arithmeticIn('I have 3 files')).toBeUndefined();
    expect(arithmeticIn('Summarise the workspace')).toBeUndefined();
  });
});
