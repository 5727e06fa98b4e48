import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { WORKFLOW_TYPE } from '../src/shared/defaults/names';
import {
  approveSignal,
  decideUpdate,
  denySignal,
  stateQuery,
  terminateSignal,
  userMessageSignal,
} from '../src/workflow-contract/definitions';
import { conversationWorkflowId } from '../src/shared/conversation';
import { endConversationSignal } from '../src/workflow-contract/conversation-definitions';
import { type AgentInput } from '../src/shared/agent-input';
import { type AgentState } from '../src/shared/agent-result';
import { sendChatTurn } from '../src/client/conversations';
import { answerElicitation } from '../src/client/run-control';
import { forkRun } from '../src/client/fork-run';
import { withLocalStack } from './local-stack';
import { createBuiltinTools } from '../src/tools/builtin';
import { defineAgentTool } from '../src/tools/define-agent-tool';
import { createAgentWorker } from '../src/worker';

/**
 * `npm run record-history`: runs scripted scenarios on a fresh dev server
 * and writes their event histories to test/replay/histories/:
 * - agent-loop.json: every branch of the loop (tool catalog, a nudge,
 *   parallel tool calls, a tool error, a terminating tool);
 * - control-plane.json: an approval decided by update with replaced
 *   arguments (an approval timer started and cancelled), a second approval
 *   interrupted by the terminate signal;
 * - ask-question.json: a run-wide timeout timer, ask_question waiting on an
 *   inputTimeout timer, the userMessage signal, a stop condition, a
 *   terminating tool;
 * - conversation.json: a conversation's two turns (chat, then invoke) as
 *   child runs started from `chat` updates, then the `end` signal;
 * - continue-as-new-start.json: the first Temporal run of a run that
 *   continues as new every two iterations: two iterations, the hand-over;
 * - continue-as-new.json: the middle Temporal run of the same run: it takes
 *   up the carried state and the rest of the first run's timeout, runs two
 *   iterations, and hands over again;
 * - call-identity.json: a model that reuses one call id (twice in one
 *   answer, again on the next turn), each call approved or denied under
 *   its own runner id;
 * - linear-history.json: a run whose conversation outgrows a model call's
 *   input (later calls carry `{ iteration, count }`, and the activity reads
 *   the messages with the `modelRequest` query) and the result's budget
 *   (the result carries the newest messages and `transcript`);
 * - compaction.json: a run with `compaction` whose context passes
 *   `maxTokens` before its fourth model call: one `compactConversation`
 *   activity, then the model sees the summary;
 * - local-tools.json: the tool catalog, the calculator (a result and an
 *   error) and `finish` as local activities, `list_files` as a regular
 *   activity, and eleven iterations with the search attributes upserted at
 *   the start, after ten iterations and at the end only.
 * - nested-agents.json and nested-agents-child.json: a run that calls a
 *   nested agent (`defineAgentTool`): the child workflow started, its
 *   pending approval reported to the parent and approved there (forwarded
 *   by signal), its answer the tool result; the child's own history beside.
 * `npm run record-history -- call-identity` records that one alone; without
 * arguments every history is recorded.
 * - attributed-decisions.json: a named agent whose three approvals are decided by a client that names itself
 *   (update), a CLI user (deny signal) and a bare `temporal workflow signal` (no name): each decision records who.
 * - output-schema.json: a run with an output schema (`tool` mode): a calculator call, the answer tool called beside
 *   another call (not taken), an answer that fails the schema and a text answer (each sent back as a correction),
 *   then a valid answer that ends the run with `output`.
 * - truncated-answers.json: a run with `modelSettings` whose model's tool call is cut by the token cap (answered
 *   in the workflow, the tool not run; a `truncated-tool-call` marker), then whose answer is cut and continued
 *   once (an `answer-truncation` marker), the parts joined.
 * - truncated-answers-before.json (not written here): the same model recorded by a worker from before those rules
 *   (its cut tool call ran, its cut answer completed the run), to prove that such runs replay on the `wf.patched`
 *   branches that keep the old behaviour.
 *
 * - model-fallbacks.json: a run on the endpoint `down` (nothing listens there) naming `scripted` as its fallback:
 *   each model call's input carries `fallbacks`, its result the endpoint that answered and the one it left.
 * - mcp-elicitation.json: a run whose call of server-everything's `trigger-elicitation-request` (an MCP server
 *   started by the worker over stdio) asks a person: the `mcpElicitation` signal from the call's worker, the run
 *   waiting for input, the `userMessage` answer read back by the worker, the call's result, the model's answer.
 *   Recorded before `answerElicitation`: it replays on the `wf.patched` branch where a message answers.
 *
 * - mcp-elicitation-answer.json: the same question answered since `answerElicitation`: a `userMessage` while it
 *   waits (the patch marker; the message joins the conversation), then the update's `accept` with who answered.
 *
 * - fork.json: a fork (`forkRun`) of a run at its second iteration, with the first calculator call's result replaced
 *   and a user message appended: `forkedFrom` in its input and first event, the AgentForkedFrom search attribute set at
 *   its start, its iterations going on from 2 (its call ids `call-2-*`), one more calculator call, its answer.
 *
 * Commit a file anew only when the workflow's behaviour changes on purpose,
 * and say why in the commit: an older recording that still replays is the
 * proof that runs in flight survive a deploy.
 */
const HISTORIES = path.resolve(__dirname, '..', 'test', 'replay', 'histories');
const MODEL = 'recorded-scenario';
const CONTROL_MODEL = 'recorded-control-plane';
const QUESTION_MODEL = 'recorded-ask-question';
const CONVERSATION_MODEL = 'recorded-conversation';
const CONTINUED_MODEL = 'recorded-continue-as-new';
const CALL_ID_MODEL = 'recorded-call-identity';
const LINEAR_MODEL = 'recorded-linear-history';
const COMPACTION_MODEL = 'recorded-compaction';
const SUMMARY_MODEL = 'recorded-compaction-summary';
const LOCAL_MODEL = 'recorded-local-tools';
const NESTED_MODEL = 'recorded-nested-agents';
const ATTRIBUTED_MODEL = 'recorded-attributed-decisions';
const OUTPUT_MODEL = 'recorded-output-schema';
const TRUNCATED_MODEL = 'recorded-truncated-answers';
const ELICITATION_MODEL = 'recorded-mcp-elicitation';
const FALLBACK_MODEL = 'recorded-model-fallbacks';
const ELICITATION_ANSWER_MODEL = 'recorded-mcp-elicitation-answer';
const FORK_MODEL = 'recorded-fork';
/** `@modelcontextprotocol/server-everything` (a devDependency) over stdio, for the MCP recording. */
const EVERYTHING_SERVER = {
  command: process.execPath,
  args: [
    path.resolve(__dirname, '..', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js'),
    'stdio',
  ],
};
const only = process.argv.slice(2);
/** Whether this run records the history `name` (all of them when none are named). */
const wanted = (name: string): boolean => only.length === 0 || only.includes(name);

async function save(
  handle: { fetchHistory: () => Promise<Parameters<typeof historyToJSON>[0]> },
  file: string,
): Promise<void> {
  const output = path.join(HISTORIES, file);
  await writeFile(output, `${JSON.stringify(JSON.parse(historyToJSON(await handle.fetchHistory())), null, 2)}\n`);
  console.log(`Wrote ${output}`);
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  await withLocalStack(async ({ model, client, workerConnection }) => {
    model.script(MODEL, [
      { content: 'Let me think about it.' },
      {
        toolCalls: [
          { name: 'calculator', arguments: { expression: '(2 + 3) * 4' }, id: 'call_a' },
          { name: 'calculator', arguments: { expression: '1 / 0' }, id: 'call_b' },
        ],
      },
      { toolCalls: [{ name: 'task_completion', arguments: { result: '20, and 1/0 is undefined.' }, id: 'call_done' }] },
    ]);
    model.script(QUESTION_MODEL, [
      { toolCalls: [{ name: 'ask_question', arguments: { question: 'Which year?' }, id: 'call_ask' }] },
      { toolCalls: [{ name: 'task_completion', arguments: { result: 'Done for 2025.' }, id: 'call_done' }] },
    ]);
    model.script(CONVERSATION_MODEL, [
      { content: 'Noted: 6 * 7.' },
      { toolCalls: [{ name: 'calculator', arguments: { expression: '6 * 7' }, id: 'call_calc' }] },
      { toolCalls: [{ name: 'finish', arguments: { note: '42' }, id: 'call_finish' }] },
    ]);
    model.script(CONTINUED_MODEL, [
      ...['1 + 1', '2 + 2', '3 + 3', '4 + 4'].map((expression, index) => ({
        toolCalls: [{ name: 'calculator', arguments: { expression }, id: `call_${index}` }],
      })),
      { toolCalls: [{ name: 'task_completion', arguments: { result: '2, 4, 6 and 8.' }, id: 'call_done' }] },
    ]);
    const add = (expression: string) => ({ name: 'calculator', arguments: { expression }, id: 'call_0' });
    model.script(CALL_ID_MODEL, [
      { toolCalls: [add('1 + 1'), add('2 + 2')] },
      { toolCalls: [add('3 + 3')] },
      { toolCalls: [{ name: 'task_completion', arguments: { result: '2, denied, 10.' }, id: 'call_0' }] },
    ]);
    // 2 KB of arguments per call: past 8 KiB by the fifth call, past the result's 32 KiB by the end.
    model.script(LINEAR_MODEL, [
      ...Array.from({ length: 18 }, (_, index) => ({
        toolCalls: [
          { name: 'calculator', arguments: { expression: `${index} + ${'0 + '.repeat(500)}1` }, id: `call_${index}` },
        ],
      })),
      { content: 'Added them all.' },
    ]);
    // About 99 estimated tokens an iteration: past 256 with three iterations in the context.
    model.script(COMPACTION_MODEL, [
      ...[1, 2, 3, 4].map((step) => ({
        content: `Step ${step}: adding. `.padEnd(360, '.'),
        toolCalls: [{ name: 'calculator', arguments: { expression: `${step} + ${step}` }, id: `call_${step}` }],
      })),
      { toolCalls: [{ name: 'task_completion', arguments: { result: '2, 4, 6 and 8.' }, id: 'call_done' }] },
    ]);
    model.script(SUMMARY_MODEL, [
      { content: 'The user asked to double 1 to 4, one at a time; 1 + 1 = 2 and 2 + 2 = 4 so far.' },
    ]);
    model.script(LOCAL_MODEL, [
      {
        toolCalls: [
          { name: 'calculator', arguments: { expression: '1 + 1' }, id: 'call_sum' },
          { name: 'calculator', arguments: { expression: '1 / 0' }, id: 'call_error' },
          { name: 'list_files', arguments: {}, id: 'call_list' },
        ],
      },
      ...Array.from({ length: 9 }, (_, index) => ({
        toolCalls: [
          { name: 'calculator', arguments: { expression: `${index + 2} + ${index + 2}` }, id: `call_${index + 2}` },
        ],
      })),
      { toolCalls: [{ name: 'finish', arguments: { note: 'Counted to eighteen.' }, id: 'call_finish' }] },
    ]);
    model.script(NESTED_MODEL, [
      { toolCalls: [{ name: 'adder', arguments: { task: 'Add 2 and 3.' }, id: 'call_adder' }] },
      { toolCalls: [{ name: 'calculator', arguments: { expression: '2 + 3' }, id: 'call_sum' }] }, // the child
      { content: '2 + 3 = 5.' }, // the child's answer
      { content: 'The adder says 5.' },
    ]);
    model.script(OUTPUT_MODEL, [
      { toolCalls: [{ name: 'calculator', arguments: { expression: '2 + 2' }, id: 'call_first' }] },
      {
        toolCalls: [
          { name: 'calculator', arguments: { expression: '3 + 3' }, id: 'call_second' },
          { name: 'final_answer', arguments: { sums: [4, 6] }, id: 'call_early' },
        ],
      },
      { toolCalls: [{ name: 'final_answer', arguments: { sums: ['4', '6'] }, id: 'call_strings' }] },
      { content: 'The sums are 4 and 6.' },
      { toolCalls: [{ name: 'final_answer', arguments: { sums: [4, 6] }, id: 'call_answer' }] },
    ]);
    model.script(CONTROL_MODEL, [
      { toolCalls: [{ name: 'calculator', arguments: { expression: '2 + 2' }, id: 'call_first' }] },
      { toolCalls: [{ name: 'calculator', arguments: { expression: '3 * 3' }, id: 'call_second' }] },
    ]);
    const worker = await createAgentWorker({
      connection: workerConnection,
      namespace: 'default',
      taskQueue: 'record-history',
      tools: [
        ...createBuiltinTools({ workspace: os.tmpdir() }),
        defineAgentTool({
          name: 'adder',
          description: 'Adds numbers.',
          instructions: 'Add with the calculator.',
          tools: ['calculator'],
          approvalTools: ['calculator'],
        }),
      ],
      model: {
        baseURL: model.baseURL,
        apiKey: 'unused',
        defaultModel: MODEL,
        // Port 9 on loopback: nothing listens, so every call there is refused and moves to `scripted`.
        endpoints: { down: { baseURL: 'http://127.0.0.1:9/v1' }, scripted: { baseURL: model.baseURL } },
      },
      // Started only by the run that names its tools.
      mcpServers: { everything: EVERYTHING_SERVER },
    });
    const input: AgentInput = {
      instructions: 'Compute, then report with task_completion.',
      tools: ['calculator', 'task_completion'],
      message: 'What is (2 + 3) * 4, and what is 1 / 0?',
      terminating: { toolIds: ['task_completion'], consecutiveNudges: 1 },
    };
    const waitForPending = async (
      handle: { query: (query: typeof stateQuery) => Promise<AgentState> },
      callId: string,
    ) => {
      for (;;) {
        const state = await handle.query(stateQuery);
        if (state.pendingApprovals.some((approval) => approval.callId === callId)) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    await worker.runUntil(async () => {
      if (wanted('truncated-answers')) {
        model.script(TRUNCATED_MODEL, [
          {
            toolCalls: [{ name: 'calculator', arguments: '{"expression": "1 +', id: 'call_cut' }],
            finishReason: 'length',
          },
          { content: 'One and one make ', finishReason: 'length' },
          { content: 'two.' },
        ]);
        const truncated = await client.workflow.start(WORKFLOW_TYPE, {
          taskQueue: 'record-history',
          workflowId: 'recorded-truncated-answers',
          args: [
            {
              model: TRUNCATED_MODEL,
              tools: ['calculator'],
              message: 'What is 1 + 1?',
              modelSettings: { maxTokens: 16, temperature: 0 },
            } satisfies AgentInput,
          ],
        });
        await truncated.result();
        await save(truncated, 'truncated-answers.json');
      }
      if (wanted('model-fallbacks')) {
        model.script(FALLBACK_MODEL, [
          { toolCalls: [{ name: 'calculator', arguments: { expression: '2 + 2' }, id: 'call_sum' }] },
          { content: '2 + 2 = 4.' },
        ]);
        const fallen = await client.workflow.start(WORKFLOW_TYPE, {
          taskQueue: 'record-history',
          workflowId: 'recorded-model-fallbacks',
          args: [
            {
              model: `down/${FALLBACK_MODEL}`,
              modelFallbacks: ['scripted'],
              tools: ['calculator'],
              message: 'What is 2 + 2?',
            } satisfies AgentInput,
          ],
        });
        await fallen.result();
        await save(fallen, 'model-fallbacks.json');
      }
      if (wanted('mcp-elicitation')) {
        model.script(ELICITATION_MODEL, [
          { toolCalls: [{ name: 'everything__trigger-elicitation-request', arguments: {}, id: 'call_ask' }] },
          { content: 'The server has your name.' },
        ]);
        const elicited = await client.workflow.start(WORKFLOW_TYPE, {
          taskQueue: 'record-history',
          workflowId: 'recorded-mcp-elicitation',
          args: [
            {
              model: ELICITATION_MODEL,
              tools: ['everything__*'],
              message: 'Let the server ask me.',
            } satisfies AgentInput,
          ],
        });
        for (;;) {
          const state = await elicited.query(stateQuery);
          if (state.status === 'waiting_for_input') break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await elicited.signal(userMessageSignal, { content: 'Ada Lovelace' });
        await elicited.result();
        await save(elicited, 'mcp-elicitation.json');
      }
      if (wanted('mcp-elicitation-answer')) {
        model.script(ELICITATION_ANSWER_MODEL, [
          { toolCalls: [{ name: 'everything__trigger-elicitation-request', arguments: {}, id: 'call_ask' }] },
          { content: 'The server has your name, and I read your note.' },
        ]);
        const asked = await client.workflow.start(WORKFLOW_TYPE, {
          taskQueue: 'record-history',
          workflowId: 'recorded-mcp-elicitation-answer',
          args: [
            {
              model: ELICITATION_ANSWER_MODEL,
              tools: ['everything__*'],
              message: 'Let the server ask me.',
            } satisfies AgentInput,
          ],
        });
        for (;;) {
          const state = await asked.query(stateQuery);
          if (state.status === 'waiting_for_input') break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await asked.signal(userMessageSignal, { content: 'A note for later, not the answer.' });
        await answerElicitation(client, asked.workflowId, {
          action: 'accept',
          content: { name: 'Ada Lovelace' },
          by: { name: 'recorder' },
        });
        await asked.result();
        await save(asked, 'mcp-elicitation-answer.json');
      }
      if (wanted('attributed-decisions')) {
        model.script(ATTRIBUTED_MODEL, [
          {
            toolCalls: [
              { name: 'calculator', arguments: { expression: '1 + 1' }, id: 'call_a' },
              { name: 'calculator', arguments: { expression: '2 + 2' }, id: 'call_b' },
              { name: 'calculator', arguments: { expression: '3 + 3' }, id: 'call_c' },
            ],
          },
          { toolCalls: [{ name: 'task_completion', arguments: { result: '2, denied, 6.' }, id: 'call_done' }] },
        ]);
        const attributed = await client.workflow.start(WORKFLOW_TYPE, {
          taskQueue: 'record-history',
          workflowId: 'recorded-attributed-decisions',
          args: [
            {
              name: 'reviewed-adder',
              model: ATTRIBUTED_MODEL,
              tools: ['calculator', 'task_completion'],
              message: 'Add three numbers, each after approval.',
              approval: { tools: ['calculator'] },
            } satisfies AgentInput,
          ],
        });
        await waitForPending(attributed, 'call-1-3');
        await attributed.executeUpdate(decideUpdate, {
          args: [{ callId: 'call-1-1', decision: 'approve', by: { name: 'release-bot', via: 'client' } }],
        });
        await attributed.signal(denySignal, {
          callId: 'call-1-2',
          reason: 'not this one',
          by: { name: 'alice', via: 'cli' },
        });
        await attributed.signal(approveSignal, { callId: 'call-1-3' });
        await attributed.result();
        await save(attributed, 'attributed-decisions.json');
      }
      if (wanted('linear-history')) {
        const linear = await client.workflow.start(WORKFLOW_TYPE, {
          taskQueue: 'record-history',
          workflowId: 'recorded-linear-history',
          args: [{ model: LINEAR_MODEL, tools: ['calculator'], message: 'Add these long sums.' } satisfies AgentInput],
        });
        await linear.result();
        await save(linear, 'linear-history.json');
      }
      if (wanted('call-identity')) {
        const calls = await client.workflow.start(WORKFLOW_TYPE, {
          taskQueue: 'record-history',
          workflowId: 'recorded-call-identity',
          args: [
            {
              model: CALL_ID_MODEL,
              tools: ['calculator', 'task_completion'],
              message: 'Add three numbers, each after approval.',
              approval: { tools: ['calculator'] },
              terminating: { toolIds: ['task_completion'] },
            } satisfies AgentInput,
          ],
        });
        await waitForPending(calls, 'call-1-2');
        await calls.signal(approveSignal, { callId: 'call-1-1' });
        await calls.executeUpdate(decideUpdate, {
          args: [{ callId: 'call-1-2', decision: 'deny', reason: 'not this one' }],
        });
        await waitForPending(calls, 'call-2-1');
        await calls.executeUpdate(decideUpdate, {
          args: [{ callId: 'call-2-1', decision: 'approve', arguments: { expression: '5 + 5' } }],
        });
        await calls.result();
        await save(calls, 'call-identity.json');
      }
      if (wanted('compaction')) {
        const compacted = await client.workflow.start(WORKFLOW_TYPE, {
          taskQueue: 'record-history',
          workflowId: 'recorded-compaction',
          args: [
            {
              model: COMPACTION_MODEL,
              tools: ['calculator', 'task_completion'],
              message: 'Double each number from 1 to 4, one call at a time.',
              terminating: { toolIds: ['task_completion'] },
              compaction: { maxTokens: 256, keepRecentIterations: 1, model: SUMMARY_MODEL },
            } satisfies AgentInput,
          ],
        });
        await compacted.result();
        await save(compacted, 'compaction.json');
      }
      if (wanted('nested-agents')) {
        const nested = await client.workflow.start(WORKFLOW_TYPE, {
          taskQueue: 'record-history',
          workflowId: 'recorded-nested-agents',
          args: [{ model: NESTED_MODEL, tools: ['adder'], message: 'Ask the adder for 2 + 3.' } satisfies AgentInput],
        });
        await waitForPending(nested, 'call-1-1/call-1-1');
        await nested.signal(approveSignal, { callId: 'call-1-1/call-1-1' });
        await nested.result();
        await save(nested, 'nested-agents.json');
        await save(client.workflow.getHandle('recorded-nested-agents/call-1-1'), 'nested-agents-child.json');
      }
      if (wanted('local-tools')) {
        const local = await client.workflow.start(WORKFLOW_TYPE, {
          taskQueue: 'record-history',
          workflowId: 'recorded-local-tools',
          args: [
            {
              model: LOCAL_MODEL,
              tools: ['calculator', 'list_files', 'finish'],
              message: 'Count, one sum a turn.',
            } satisfies AgentInput,
          ],
        });
        await local.result();
        await save(local, 'local-tools.json');
      }
      if (wanted('output-schema')) {
        const structured = await client.workflow.start(WORKFLOW_TYPE, {
          taskQueue: 'record-history',
          workflowId: 'recorded-output-schema',
          args: [
            {
              model: OUTPUT_MODEL,
              tools: ['calculator'],
              message: 'Add 2 and 2, then 3 and 3; answer with both sums.',
              output: {
                schema: {
                  type: 'object',
                  properties: { sums: { type: 'array', items: { type: 'integer' }, minItems: 2 } },
                  required: ['sums'],
                  additionalProperties: false,
                },
              },
            } satisfies AgentInput,
          ],
        });
        await structured.result();
        await save(structured, 'output-schema.json');
      }
      if (wanted('fork')) {
        model.script(FORK_MODEL, [
          { toolCalls: [{ name: 'calculator', arguments: { expression: '2 + 2' }, id: 'call_calc' }] },
          { content: 'It is 4.' },
          // The fork's own calls: another calculation on the replaced result, then its answer.
          { toolCalls: [{ name: 'calculator', arguments: { expression: '5 * 2' }, id: 'call_calc' }] },
          { content: 'Then 10.' },
        ]);
        const source = await client.workflow.start(WORKFLOW_TYPE, {
          taskQueue: 'record-history',
          workflowId: 'recorded-fork-source',
          args: [{ model: FORK_MODEL, tools: ['calculator'], message: 'What is 2 + 2?' } satisfies AgentInput],
        });
        await source.result();
        const fork = await forkRun(client, source.workflowId, {
          atIteration: 2,
          workflowId: 'recorded-fork',
          edit: { toolResults: { 'call-1-1': '5' }, message: 'And twice that?' },
        });
        await fork.handle.result();
        await save(fork.handle, 'fork.json');
      }
      if (!wanted('agent-loop')) return;
      const loop = await client.workflow.start(WORKFLOW_TYPE, {
        taskQueue: 'record-history',
        workflowId: 'recorded-agent-loop',
        args: [input],
      });
      await loop.result();
      await save(loop, 'agent-loop.json');

      const controlInput: AgentInput = {
        model: CONTROL_MODEL,
        tools: ['calculator'],
        message: 'Compute two things, each after approval.',
        approval: { tools: ['calculator'], timeout: '1 hour' },
      };
      const control = await client.workflow.start(WORKFLOW_TYPE, {
        taskQueue: 'record-history',
        workflowId: 'recorded-control-plane',
        args: [controlInput],
      });
      // Approvals name the runner's ids (`call-<iteration>-<n>`), not the model's.
      await waitForPending(control, 'call-1-1');
      await control.executeUpdate(decideUpdate, {
        args: [{ callId: 'call-1-1', decision: 'approve', arguments: { expression: '2 + 3' } }],
      });
      await waitForPending(control, 'call-2-1');
      await control.signal(terminateSignal, { reason: 'recorded stop' });
      await control.result();
      await save(control, 'control-plane.json');

      const questionInput: AgentInput = {
        model: QUESTION_MODEL,
        tools: ['ask_question', 'task_completion'],
        message: 'Make the yearly report.',
        timeout: '1 hour',
        inputTimeout: '1 hour',
        stopWhen: { any: [{ maxIterations: 10 }, { textMention: 'GIVE UP' }] },
      };
      const question = await client.workflow.start(WORKFLOW_TYPE, {
        taskQueue: 'record-history',
        workflowId: 'recorded-ask-question',
        args: [questionInput],
      });
      for (;;) {
        if ((await question.query(stateQuery)).status === 'waiting_for_input') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await question.signal(userMessageSignal, { content: '2025' });
      await question.result();
      await save(question, 'ask-question.json');

      // Two turns on one context (a chat, then an invoke ending on a terminating tool), then the end signal.
      const settings = { model: CONVERSATION_MODEL, tools: ['calculator', 'finish'] };
      await sendChatTurn(
        client,
        'recorded',
        { kind: 'chat', message: 'Remember 6 * 7.', settings },
        { taskQueue: 'record-history' },
      );
      await sendChatTurn(
        client,
        'recorded',
        { kind: 'invoke', settings: { ...settings, terminating: { toolIds: ['finish'] } } },
        { taskQueue: 'record-history' },
      );
      const conversation = client.workflow.getHandle(conversationWorkflowId('recorded'));
      await conversation.signal(endConversationSignal);
      await conversation.result();
      await save(conversation, 'conversation.json');

      const continuedInput: AgentInput = {
        model: CONTINUED_MODEL,
        tools: ['calculator', 'task_completion'],
        message: 'Add each number to itself, one call at a time.',
        terminating: { toolIds: ['task_completion'] },
        iterationsPerRun: 2,
        timeout: '1 hour',
      };
      const continued = await client.workflow.start(WORKFLOW_TYPE, {
        taskQueue: 'record-history',
        workflowId: 'recorded-continue-as-new',
        args: [continuedInput],
      });
      await continued.result();
      const firstRunHandle = client.workflow.getHandle('recorded-continue-as-new', continued.firstExecutionRunId);
      await save(firstRunHandle, 'continue-as-new-start.json');
      const firstRun = await firstRunHandle.fetchHistory();
      const middleRunId = firstRun.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
      if (!middleRunId) throw new Error('the recorded run did not continue as new');
      await save(client.workflow.getHandle('recorded-continue-as-new', middleRunId), 'continue-as-new.json');
    });
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
