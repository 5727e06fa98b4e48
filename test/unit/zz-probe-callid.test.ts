import { messagesForModel, withRunnerCallIds, flaggedCalls } from '../../src/workflows/call-identity';
import { toolNameLookup } from '../../src/workflows/observation-masking';
import type { ChatMessage, AssistantMessage } from '../../src/shared';

const call = (id: string, name = 't') => ({ id, type: 'function' as const, function: { name, arguments: '{}' } });
function check(ms: ChatMessage[]) {
  const out = messagesForModel(ms);
  const ids: string[] = []; const answered: string[] = [];
  for (const m of out) {
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) ids.push(c.id);
    if (m.role === 'tool') answered.push(m.tool_call_id);
  }
  return { ids, answered };
}
test('pre-patch duplicate ids in one answer (no meta)', () => {
  const ms: ChatMessage[] = [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: null, tool_calls: [call('call_0'), call('call_0')] },
    { role: 'tool', tool_call_id: 'call_0', content: 'a' },
    { role: 'tool', tool_call_id: 'call_0', content: 'b' },
  ];
  console.log(JSON.stringify(check(ms)));
});
test('conversation turns: same runner ids in two turns, meta kept', () => {
  const a1 = withRunnerCallIds({ role: 'assistant', content: null, tool_calls: [call('abc', 'search')] }, 1);
  const a2 = withRunnerCallIds({ role: 'assistant', content: null, tool_calls: [call('abc', 'send')] }, 1);
  const ms: ChatMessage[] = [
    { role: 'user', content: 'hi' }, a1, { role: 'tool', tool_call_id: 'call-1-1', content: 'r1', meta: { iteration: 1 } },
    { role: 'user', content: 'again' }, a2, { role: 'tool', tool_call_id: 'call-1-1', content: 'r2', meta: { iteration: 1 } },
  ];
  console.log(JSON.stringify(check(ms)), toolNameLookup(ms)('call-1-1'));
});
test('hostile', () => {
  const a = withRunnerCallIds({ role: 'assistant', content: null, tool_calls: [call('__proto__'), call('constructor'), call('__proto__')] }, 1);
  console.log(JSON.stringify(a.meta));
  const ms: ChatMessage[] = [a, { role: 'tool', tool_call_id: 'call-1-1', content: 'x' }, { role: 'tool', tool_call_id: 'call-1-2', content: 'x' }, { role: 'tool', tool_call_id: 'call-1-3', content: 'x' }];
  console.log(JSON.stringify(check(ms)));
  console.log([...flaggedCalls(a as AssistantMessage, ['__proto__'])]);
});
