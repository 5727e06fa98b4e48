import { z } from 'zod';
import { forkRun } from '../../src/client/fork-run';
import { ForkRefusedError } from '../../src/client/fork-refused-error';
import { decideToolCall, listAgentRuns } from '../../src/client/run-control';
import { RunNotFoundError } from '../../src/client/run-not-found-error';
import { getAgentState } from '../../src/client';
import { eventsQuery } from '../../src/workflow-contract/definitions';
import type { ChatCompletionRequest, ScriptStep } from '../../src/scripted-model/script';
import { type AgentResult } from '../../src/shared/agent-result';
import { addUsage, type Usage, ZERO_USAGE } from '../../src/shared/messages';
import { withAnswerRestored, type AgentWorkflowResult } from '../../src/shared/result-answer';
import { temporalRunsOf } from '../../src/temporal/run-chain';
import { defineTool } from '../../src/tools/define-tool';
import { defineAgentTool } from '../../src/tools/define-agent-tool';
import { EncryptedAgent, newCodecKey } from '../helpers/encrypted-agent';
import { pingTool } from '../helpers/ping-tool';
import { TestEnv, testServerAddress } from '../helpers/test-env';
import { waitFor, waitForState } from '../helpers/wait';
import { deleteFirstTemporalRun } from '../helpers/history-gone';

/**
 * A fork is a new run that takes a run's conversation as it stood when an iteration began, from the source's
 * recorded history, with an edit: nothing before the fork point runs again, and the source is untouched.
 */

/** Every execution of `ledger_write`, with its idempotency key: the side effect a fork must never repeat. */
const ledger: { label: string; key: string }[] = [];

const ledgerWrite = defineTool({
  name: 'ledger_write',
  description: 'Writes a line to the ledger.',
  parameters: z.object({ label: z.string() }),
  execute: ({ label }, { idempotencyKey }) => {
    ledger.push({ label, key: idempotencyKey });
    return `wrote ${label}`;
  },
});

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks the price up.',
  parameters: z.object({}),
  execute: () => 'price: -5 (bad data)',
});

const researcher = defineAgentTool({
  name: 'researcher',
  description: 'Researches a question.',
  instructions: 'You research.',
  tools: ['ping'],
});

/** A model the worker prices at a dollar a thousand tokens. */
const PRICED_MODEL = 'fork-priced';

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({
    extraTools: [ledgerWrite, lookup, pingTool, researcher],
    prices: { [PRICED_MODEL]: { inputPerMTok: 1_000, outputPerMTok: 1_000 } },
  });
});
afterAll(async () => {
  await env.close();
});

/**
 * The agent's model, deciding from the conversation: it looks the price up, writes a bad price to the ledger, and
 * answers; a good price it answers at once; a person's later message it answers by name.
 */
function pricingModel(request: ChatCompletionRequest): ScriptStep {
  const last = request.messages.at(-1);
  if (last?.role === 'user' && last.content?.startsWith('also')) return { content: `noted: ${last.content}` };
  if (last?.role === 'user') return { toolCalls: [{ name: 'lookup', arguments: {} }] };
  if (last?.role === 'tool' && last.content?.includes('bad data'))
    return { toolCalls: [{ name: 'ledger_write', arguments: { label: 'refund' } }] };
  if (last?.role === 'tool' && last.content?.includes('good')) return { content: 'the price is fine' };
  return { content: 'refund written' };
}

function pricingScenario(): string {
  const name = env.scenario([]);
  env.model.respond(name, pricingModel);
  return name;
}

async function resultOf(workflowId: string): Promise<AgentResult> {
  return withAnswerRestored((await env.client.workflow.getHandle(workflowId).result()) as AgentWorkflowResult);
}

describe('forkRun', () => {
  test('a fork with a replaced tool result takes another path; the source and its side effect are untouched', async () => {
    const model = pricingScenario();
    const source = await env.start({
      model,
      instructions: 'You price things.',
      tools: ['lookup', 'ledger_write'],
      message: 'price the lamp',
    });
    const sourceResult = (await source.result()) as AgentResult;
    expect(sourceResult.response).toBe('refund written');
    expect(sourceResult.iterations).toBe(3);
    const written = ledger.length;

    const fork = await forkRun(env.client, source.workflowId, {
      atIteration: 2,
      edit: { toolResults: { 'call-1-1': 'price: 12 (good)' } },
    });
    const result = await resultOf(fork.workflowId);

    expect(result.response).toBe('the price is fine');
    // Its iterations go on from the fork point; it made one model call of its own and spent only on that.
    expect(result).toMatchObject({ iterations: 2, invocations: 1 });
    const sourceAtTwo = await sourceUsageBefore(source.workflowId, 2);
    expect(result.forkedFrom).toEqual({ runId: source.workflowId, iteration: 2, inherited: sourceAtTwo });
    expect(result.usage.totalTokens).toBeLessThan(sourceResult.usage.totalTokens);
    expect(addUsage(sourceAtTwo, result.usage).totalTokens).toBeGreaterThan(result.usage.totalTokens);
    // Nothing before the fork point ran again: the model was called once, on the source's conversation, edited.
    const requests = env.model.requests(model);
    expect(requests).toHaveLength(3 + 1);
    const forkRequest = requests.at(-1)!;
    expect(forkRequest.messages.map((message) => [message.role, message.content ?? null])).toEqual([
      ['system', 'You price things.'],
      ['user', 'price the lamp'],
      ['assistant', null],
      ['tool', 'price: 12 (good)'],
    ]);
    expect(ledger).toHaveLength(written);
    // The source is untouched; the fork's first event and the search attribute say where it came from.
    expect(((await source.result()) as AgentResult).response).toBe('refund written');
    const events = await fork.handle.query(eventsQuery, { after: 0 });
    expect(events.events[0]).toMatchObject({
      type: 'run-start',
      forkedFrom: { runId: source.workflowId, iteration: 2 },
    });
    const forks = await waitFor(
      () => listAgentRuns(env.client, { query: `AgentForkedFrom = '${source.workflowId}'` }),
      (rows) => rows.length === 1,
    );
    expect(forks.map((row) => row.workflowId)).toEqual([fork.workflowId]);
  });

  test('a side effect made before the fork point is never made again, by a fork or a fork of the fork', async () => {
    const model = pricingScenario();
    const source = await env.start({ model, tools: ['lookup', 'ledger_write'], message: 'price the desk' });
    await source.result();
    const keys = ledger.map((line) => line.key);

    const fork = await forkRun(env.client, source.workflowId, { atIteration: 3, edit: { message: 'also the chair' } });
    const forkResult = await resultOf(fork.workflowId);
    expect(forkResult.response).toBe('noted: also the chair');
    expect(forkResult.iterations).toBe(3);

    const second = await forkRun(env.client, fork.workflowId, {
      atIteration: 3,
      edit: { message: 'also the shelf', input: { instructions: 'Be brief.' } },
    });
    const secondResult = await resultOf(second.workflowId);
    expect(secondResult.response).toBe('noted: also the shelf');
    expect(secondResult.forkedFrom).toMatchObject({ runId: fork.workflowId, iteration: 3 });
    // What the first fork inherited is part of what the second did: the source's spending to iteration 3.
    expect(secondResult.forkedFrom?.inherited?.totalTokens).toBe(forkResult.forkedFrom?.inherited?.totalTokens);
    // The first fork's conversation at its iteration 3, its own message included, then the second fork's.
    expect(secondResult.messages.map((message) => message.content)).toEqual([
      'price the desk',
      null,
      'price: -5 (bad data)',
      null,
      'wrote refund',
      'also the chair',
      'also the shelf',
      'noted: also the shelf',
    ]);
    expect(env.model.requests(model).at(-1)?.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    // The ledger line of the source's one call, and no other.
    expect(ledger.map((line) => line.key)).toEqual(keys);
    expect(ledger.filter((line) => line.label === 'refund').length).toBeGreaterThanOrEqual(1);
  });

  test('a fork of a run that continued as new takes the iteration from the Temporal run that held it', async () => {
    const model = pricingScenario();
    const source = await env.start({
      model,
      tools: ['lookup', 'ledger_write'],
      message: 'price the rug',
      iterationsPerRun: 1,
    });
    await source.result();
    expect((await temporalRunsOf(env.client, source.workflowId)).length).toBeGreaterThanOrEqual(3);

    const fork = await forkRun(env.client, source.workflowId, {
      atIteration: 2,
      edit: { toolResults: { 'call-1-1': 'price: 30 (good)' } },
    });
    const result = await resultOf(fork.workflowId);
    expect(result.response).toBe('the price is fine');
    // The source's original input, not the one its later Temporal runs were continued with.
    expect(fork.input).toMatchObject({ iterationsPerRun: 1, tools: ['lookup', 'ledger_write'] });
    expect(result.messages.map((message) => message.content)).toEqual([
      'price the rug',
      null,
      'price: 30 (good)',
      'the price is fine',
    ]);
  });

  test("a fork's cost and budget count only its own calls; what it inherited is in its result", async () => {
    env.model.respond(PRICED_MODEL, pricingModel);
    const source = await env.start({
      model: PRICED_MODEL,
      tools: ['lookup', 'ledger_write'],
      message: 'price the mat',
    });
    const sourceResult = (await source.result()) as AgentResult;
    const sourceCost = sourceResult.usage.costUsd ?? 0;
    expect(sourceCost).toBeGreaterThan(0);
    const inherited = await sourceUsageBefore(source.workflowId, 3);

    // A budget the fork's own call stays under and what it inherited passes: counted with it, the fork would fail at once.
    const inheritedCost = inherited.costUsd ?? 0;
    // Half the source's cost: its two calls before the fork point cost more, the fork's one call (its third) less.
    const maxUsd = sourceCost / 2;
    expect(inheritedCost).toBeGreaterThan(maxUsd);
    const fork = await forkRun(env.client, source.workflowId, {
      atIteration: 3,
      edit: { input: { costBudget: { maxUsd } } },
    });
    const result = await resultOf(fork.workflowId);
    expect(result.response).toBe('refund written');
    expect(result.forkedFrom?.inherited).toEqual(inherited);
    expect(result.usage.costUsd).toBeLessThan(maxUsd);
    // The fork's one call, priced alone: the source's third call saw the same conversation.
    const ownCost = result.usage.costUsd ?? 0;
    expect(ownCost).toBeGreaterThan(0);
    expect(ownCost).toBeCloseTo(sourceCost - (inherited.costUsd ?? 0), 9);
    expect(result.invocations).toBe(1);
  });

  test('a failed run is forked with a higher limit and finishes', async () => {
    const model = pricingScenario();
    const source = await env.start({
      model,
      tools: ['lookup', 'ledger_write'],
      message: 'price the vase',
      maxInvocations: 2,
    });
    await expect(source.result()).rejects.toThrow();
    const fork = await forkRun(env.client, source.workflowId, {
      atIteration: 2,
      edit: { input: { maxInvocations: 5 } },
    });
    const result = await resultOf(fork.workflowId);
    expect(result.response).toBe('refund written');
    expect(result.invocations).toBe(2);
  });

  test('a call waiting for approval at the fork point is asked again, by the fork', async () => {
    const model = pricingScenario();
    const source = await env.start({
      model,
      tools: ['lookup', 'ledger_write'],
      message: 'price the clock',
      approval: { tools: ['ledger_write'] },
    });
    await waitForState(source, (state) => state.pendingApprovals.length === 1);
    const written = ledger.length;

    // The source still runs: the fork takes what its history has recorded so far.
    const fork = await forkRun(env.client, source.workflowId, { atIteration: 2 });
    const waiting = await waitForState(fork.handle, (state) => state.pendingApprovals.length === 1);
    expect(waiting.pendingApprovals[0]).toMatchObject({ callId: 'call-2-1', toolName: 'ledger_write' });
    await decideToolCall(env.client, fork.workflowId, {
      callId: 'call-2-1',
      decision: 'deny',
      reason: 'not in a fork',
    });
    const result = await resultOf(fork.workflowId);
    expect(result.response).toBe('refund written');
    expect(ledger).toHaveLength(written);
    expect((await getAgentState(env.client, source.workflowId)).pendingApprovals).toHaveLength(1);
    await source.terminate('test over');
  });
});

describe('forkRun, of other runs', () => {
  test("a nested agent's run is forked on its own: its parent is untouched", async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'researcher', arguments: { task: 'Is example.org up?' } }] },
      { toolCalls: [{ name: 'ping', arguments: { host: 'example.org' } }] }, // the child
      { content: 'example.org answers pings.' }, // the child's answer
      { content: 'It is up.' }, // the parent again
    ]);
    const parent = await env.start({ model, tools: ['researcher'], message: 'check example.org' });
    await parent.result();
    const childId = `${parent.workflowId}/call-1-1`;

    const forkModel = env.scenario([{ content: 'example.org is down.' }]);
    const fork = await forkRun(env.client, childId, {
      atIteration: 2,
      edit: { toolResults: { 'call-1-1': 'no answer' }, input: { model: forkModel } },
    });
    const result = await resultOf(fork.workflowId);
    expect(result.response).toBe('example.org is down.');
    expect(result.forkedFrom).toMatchObject({ runId: childId, iteration: 2 });
    expect(fork.input).toMatchObject({ depth: 1, instructions: 'You research.' });
    // The model sees the replaced result, under the id it gave the call.
    expect(env.model.requests(forkModel)[0]?.messages.at(-1)).toMatchObject({ role: 'tool', content: 'no answer' });
    expect(((await parent.result()) as AgentResult).response).toBe('It is up.');
  });

  test("an encrypted run is read with the client's data converter; a client without the key cannot fork it", async () => {
    const agent = await EncryptedAgent.start(testServerAddress(), [newCodecKey('fork-key')]);
    try {
      const sourceId = await agent.run('what is 2 + 2?', '4');
      const model = 'fork-encrypted';
      agent.model.script(model, [{ content: '5, in a fork' }]);
      const fork = await forkRun(agent.client, sourceId, {
        atIteration: 1,
        edit: { message: 'and plus one?', input: { model } },
      });
      const result = withAnswerRestored((await fork.handle.result()) as AgentWorkflowResult);
      expect(result.response).toBe('5, in a fork');
      expect(result.messages.map((message) => message.content)).toEqual([
        'what is 2 + 2?',
        'and plus one?',
        '5, in a fork',
      ]);
      // The source's history holds its input encrypted: a client without the key reads nothing from it.
      await expect(forkRun(env.client, sourceId, { atIteration: 1 })).rejects.toThrow();
    } finally {
      await agent.close();
    }
  });
});

describe('forkRun refuses, before starting anything', () => {
  let sourceId: string;
  beforeAll(async () => {
    const source = await env.start({
      model: pricingScenario(),
      tools: ['lookup', 'ledger_write'],
      message: 'price the bowl',
      iterationsPerRun: 1,
    });
    await source.result();
    sourceId = source.workflowId;
  });

  test.each([
    [0, /from 1/],
    [4, /began iterations 1 to 3; iteration 4 is not one of them/],
  ])('iteration %d', async (atIteration, message) => {
    await expect(forkRun(env.client, sourceId, { atIteration })).rejects.toThrow(message);
    await expect(forkRun(env.client, sourceId, { atIteration })).rejects.toBeInstanceOf(ForkRefusedError);
  });

  test('a call that does not exist, or was made at or after the fork point', async () => {
    await expect(
      forkRun(env.client, sourceId, { atIteration: 2, edit: { toolResults: { 'call-9-9': 'x' } } }),
    ).rejects.toThrow(/iteration 9, at or after the fork point/);
    await expect(
      forkRun(env.client, sourceId, { atIteration: 2, edit: { toolResults: { 'call-2-1': 'x' } } }),
    ).rejects.toThrow(/iteration 2, at or after the fork point/);
    await expect(
      forkRun(env.client, sourceId, { atIteration: 2, edit: { toolResults: { nope: 'x' } } }),
    ).rejects.toMatchObject({ refusal: 'call' });
  });

  test('an edit that makes the input invalid', async () => {
    await expect(
      forkRun(env.client, sourceId, { atIteration: 2, edit: { input: { tools: ['lookup', 'lookup'] } } }),
    ).rejects.toMatchObject({ refusal: 'input', message: expect.stringMatching(/listed twice/) });
  });

  test('an unknown source', async () => {
    await expect(forkRun(env.client, 'no-such-run', { atIteration: 1 })).rejects.toBeInstanceOf(RunNotFoundError);
  });

  test('a source whose Temporal run that held the iteration is gone', async () => {
    await deleteFirstTemporalRun(env.client, sourceId);
    await expect(forkRun(env.client, sourceId, { atIteration: 3 })).rejects.toMatchObject({ refusal: 'history-gone' });
  }, 150_000);
});

/** The source's usage when iteration `iteration` began: its model calls before it, from its event log. */
async function sourceUsageBefore(workflowId: string, iteration: number): Promise<Usage> {
  const page = await env.client.workflow.getHandle(workflowId).query(eventsQuery, { after: 0 });
  return page.events
    .flatMap((event) => (event.type === 'model-response' && event.iteration < iteration ? [event.usage] : []))
    .reduce(addUsage, ZERO_USAGE);
}
