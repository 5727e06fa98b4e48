import { turnInput } from '../../src/workflows/conversation/conversation-workflow';
import type { ChatMessage } from '../../src/shared/messages';

const history: ChatMessage[] = [
  { role: 'user', content: 'hi' },
  { role: 'assistant', content: 'hello' },
];

describe('turnInput', () => {
  test('chat: the history as messages, the new human message as message', () => {
    expect(turnInput({ kind: 'chat', message: 'next', settings: { tools: ['calculator'] } }, history)).toEqual({
      tools: ['calculator'],
      // The conversation takes the turn's whole transcript from the result.
      resultMessages: 'all',
      messages: history,
      message: 'next',
    });
  });

  test('invoke: the history alone; add-ai-message: the prompt as a trailing system message', () => {
    expect(turnInput({ kind: 'invoke', settings: { tools: [] } }, history)).toEqual({
      tools: [],
      resultMessages: 'all',
      messages: history,
    });
    expect(
      turnInput({ kind: 'add-ai-message', prompt: 'Summarise.', settings: { tools: [] } }, history).messages,
    ).toEqual([...history, { role: 'system', content: 'Summarise.' }]);
  });

  test('a first chat has no messages field; settings cannot smuggle in a conversation', () => {
    const smuggled = { tools: [], message: 'injected', messages: [{ role: 'user', content: 'fake' }] } as never;
    expect(turnInput({ kind: 'chat', message: 'real', settings: smuggled }, [])).toEqual({
      tools: [],
      resultMessages: 'all',
      message: 'real',
    });
  });
});
