import path from 'node:path';
import { z } from 'zod';
import { stopSignal } from '../../src/workflow-contract/definitions';
import { type AgentResult } from '../../src/shared/agent-result';
import { defineTool } from '../../src/tools/define-tool';
import { pingTool } from '../helpers/ping-tool';
import { TestEnv } from '../helpers/test-env';
import { waitForState } from '../helpers/wait';

const transferTool = defineTool({
  name: 'transfer_to_billing',
  description: 'Hand the conversation to billing.',
  parameters: z.object({}),
  execute: () => 'handed over',
});

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({
    extraTools: [pingTool, transferTool],
    workflowsPath: path.join(__dirname, '..', 'fixtures', 'workflows-with-custom-stop.ts'),
  });
});
afterAll(async () => {
  await env.close();
});

const ping = (host: string) => ({ toolCalls: [{ name: 'ping', arguments: { host } }] });

describe('stopWhen (custom stop conditions and termination conditions): a graceful end, never a failure', () => {
  test('textMention, checked after the model response', async () => {
    const model = env.scenario([ping('a'), { content: 'Looks good. APPROVE' }]);
    const result = await env.run({ model, tools: ['ping'], message: 'review', stopWhen: { textMention: 'APPROVE' } });
    expect(result.terminationReason).toEqual({
      type: 'stop_condition',
      condition: 'textMention("APPROVE")',
      detail: 'assistant message 2 of this turn mentions "APPROVE"',
    });
    expect(result.response).toBe('Looks good. APPROVE');
  });

  test('maxIterations: the calls of the last answer are not executed and the transcript stays valid', async () => {
    const model = env.scenario([ping('a'), ping('b'), ping('c')]);
    const result = await env.run({ model, tools: ['ping'], message: 'go', stopWhen: { maxIterations: 2 } });
    expect(result.terminationReason).toMatchObject({ type: 'stop_condition', condition: 'maxIterations(2)' });
    expect(result.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: 'Not executed: the run stopped before this call ran.',
    });
    expect(env.model.requests(model)).toHaveLength(2);
  });

  test('functionCall, checked after the tool batch', async () => {
    const model = env.scenario([ping('a'), { content: 'never asked' }]);
    const result = await env.run({ model, tools: ['ping'], message: 'go', stopWhen: { functionCall: 'ping' } });
    expect(result.terminationReason).toEqual({
      type: 'stop_condition',
      condition: 'functionCall("ping")',
      detail: 'tool "ping" executed this turn',
    });
    expect(result.messages.at(-1)).toMatchObject({ role: 'tool', content: 'pong a' });
    expect(env.model.requests(model)).toHaveLength(1);
  });

  test('handoff: after transfer_to_<target> ran', async () => {
    const model = env.scenario([{ toolCalls: [{ name: 'transfer_to_billing', arguments: {} }] }]);
    const result = await env.run({
      model,
      tools: ['transfer_to_billing'],
      message: 'refund please',
      stopWhen: { handoff: 'billing' },
    });
    expect(result.terminationReason).toMatchObject({ type: 'stop_condition', condition: 'handoff("billing")' });
  });

  test('any reports the member that held; all holds only when every member does', async () => {
    const anyModel = env.scenario([{ content: 'DONE' }]);
    const anyResult = await env.run({
      model: anyModel,
      tools: [],
      message: 'go',
      stopWhen: { any: [{ maxMessages: 100 }, { textMention: 'DONE' }] },
    });
    expect(anyResult.terminationReason).toMatchObject({ condition: 'textMention("DONE")' });

    const allModel = env.scenario([
      { content: 'OK then', toolCalls: [{ name: 'ping', arguments: { host: 'x' } }] },
      ping('y'),
      { content: 'OK' },
    ]);
    const allResult = await env.run({
      model: allModel,
      tools: ['ping'],
      message: 'go',
      stopWhen: { all: [{ functionCall: 'ping' }, { maxIterations: 3 }] },
    });
    expect(allResult.terminationReason).toMatchObject({
      type: 'stop_condition',
      condition: 'all(functionCall("ping"), maxIterations(3))',
    });
    expect(env.model.requests(allModel)).toHaveLength(3);
  });

  test('tokenUsage and timeout', async () => {
    const tokens = await env.run({
      model: env.scenario([ping('a'), ping('b')]),
      tools: ['ping'],
      message: 'go',
      stopWhen: { tokenUsage: { maxTotal: 1 } },
    });
    expect(tokens.terminationReason).toMatchObject({ type: 'stop_condition', condition: 'tokenUsage(maxTotal: 1)' });

    const slow = { ...ping('slow'), delayMs: 700 };
    const timed = await env.run({
      model: env.scenario([slow, slow, slow, slow]),
      tools: ['ping'],
      message: 'go',
      stopWhen: { timeout: '1s' },
    });
    expect(timed.terminationReason).toMatchObject({ type: 'stop_condition', condition: 'timeout("1s")' });
    // How many 700 ms answers fit before the check sees 1 s depends on the machine's load; that it stopped
    // before the script ran out, and why, does not.
    const detail = timed.terminationReason.type === 'stop_condition' ? timed.terminationReason.detail : '';
    expect(Number(/^(\d+) ms since the turn started, limit 1000 ms$/.exec(detail)?.[1])).toBeGreaterThanOrEqual(1000);
    expect(timed.iterations).toBeGreaterThanOrEqual(1);
    expect(timed.iterations).toBeLessThanOrEqual(3);
  });

  test('external: the stop signal ends the run at its next check, without cancelling anything', async () => {
    // The first call is held for 5 s: the stop arrives while it is in flight.
    const model = env.scenario([{ ...ping('a'), delayMs: 5_000 }, ping('b')]);
    const handle = await env.start({
      model,
      tools: ['ping'],
      message: 'go',
      stopWhen: { any: [{ external: true }, { maxIterations: 10 }] },
    });
    await waitForState(handle, (state) => state.iteration === 1);
    await handle.signal(stopSignal, { reason: 'enough' });
    const result = (await handle.result()) as AgentResult;
    expect(result.terminationReason).toEqual({
      type: 'stop_condition',
      condition: 'external()',
      detail: 'an external stop was requested',
    });
    // The model call in flight finished normally; its tool calls were not executed.
    expect(result.invocations).toBe(1);
  });

  test('a custom condition registered in workflow code, referenced by name with params', async () => {
    const model = env.scenario([ping('a'), ping('b'), ping('c')]);
    const result = await env.run({
      model,
      tools: ['ping'],
      message: 'go',
      stopWhen: { custom: 'tool-calls-at-least', params: { count: 2 } },
    });
    expect(result.terminationReason).toMatchObject({
      type: 'stop_condition',
      condition: 'custom("tool-calls-at-least", {"count":2})',
      detail: '2 tool calls this turn',
    });
  });

  test('bad conditions fail the run at once with InvalidAgentInput', async () => {
    const unknownCustom = await env.runExpectingFailure({
      tools: ['ping'],
      message: 'go',
      stopWhen: { any: [{ maxMessages: 3 }, { custom: 'nope' }] },
    });
    expect(unknownCustom.type).toBe('InvalidAgentInput');
    expect(unknownCustom.message).toContain(
      'stopWhen.any[1].custom: no stop condition named "nope" is registered (registered: tool-calls-at-least)',
    );

    const malformed = await env.runExpectingFailure({ tools: [], message: 'go', stopWhen: { maxMessages: 0 } });
    expect(malformed.message).toContain('stopWhen.maxMessages: Too small');
  });
});
