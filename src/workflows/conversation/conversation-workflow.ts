import * as wf from '@temporalio/workflow';
import { CONTEXT_BUDGET_BYTES, PAYLOAD_BUDGET_BYTES, TEMPORAL_PAYLOAD_LIMIT_BYTES } from '../../shared/defaults/sizes';
import { CONVERSATION_DEFAULTS } from '../../shared/defaults/conversations';
import {
  CONVERSATION_INPUT_VERSION,
  ConversationFailure,
  conversationWorkflowId,
  turnWorkflowId,
  type ActiveTurn,
  type ChatTurnRequest,
  type ChatTurnResult,
  type ConversationInput,
  type ConversationState,
  type RememberedTurn,
} from '../../shared/conversation';
import { FailureType, type FailureTypeName } from '../../shared/failure-catalogue';
import { chatUpdate, conversationQuery, endConversationSignal } from '../../workflow-contract/conversation-definitions';
import { formatBytes, jsonBytes } from '../../shared/payload-limits';
import { parseAgentInput, type AgentInput } from '../../shared/agent-input';
import { withAnswerRestored } from '../../shared/result-answer';
import { type ChatMessage } from '../../shared/messages';
import { agentWorkflow } from '../agent/agent-workflow';
import { readConversationInput } from './conversation-input';
import { invalidAgentInput } from '../agent/failures';
import { toGeneratedMessages } from '../rules/generated-messages';
import { projectedRunBytes } from '../rules/size-rules';

/**
 * A durable conversation: keeps the history of one `context_id` and runs each
 * `chat` update as a child `agentWorkflow` on it, one turn at a time. A
 * completed turn's messages join the history; a failed turn leaves the
 * history as it was, so the conversation never holds half a turn.
 */
export async function conversationWorkflow(
  rawInput: ConversationInput,
  ...afterInput: unknown[]
): Promise<ConversationState> {
  // An argument the workflow cannot read fails it with a reason; reading it anyway would throw and retry the task forever.
  // Any version this code reads arrives as the current one (conversation-input.ts).
  const read = readConversationInput(rawInput, afterInput);
  if (!read.ok) throw invalidAgentInput(read.problems);
  const input = read.input;
  const conversation = {
    messages: input.messages ?? [],
    turns: input.turns ?? 0,
    active: undefined as ActiveTurn | undefined,
    ended: false,
    recent: input.recentTurns ?? [],
  };
  /** The answer of a turn already run for this update id (a retried request), carried across continue-as-new. */
  const earlierAnswer = (): ChatTurnResult | undefined => {
    const updateId = wf.currentUpdateInfo()?.id;
    const remembered = conversation.recent.find((entry) => entry.updateId === updateId);
    if (remembered === undefined) return undefined;
    const { from, to } = remembered.messages;
    return { ...remembered.answer, generatedMessages: toGeneratedMessages(conversation.messages.slice(from, to)) };
  };
  let turnsThisRun = 0;
  const snapshot = (): ConversationState => ({
    contextId: input.contextId,
    messages: conversation.messages,
    turns: conversation.turns,
    ...(conversation.active === undefined ? {} : { activeTurn: conversation.active }),
    ended: conversation.ended,
  });

  wf.setHandler(conversationQuery, snapshot);
  wf.setHandler(endConversationSignal, () => {
    conversation.ended = true;
  });
  wf.setHandler(chatUpdate, runTurn, {
    validator: (request) => {
      if (earlierAnswer() !== undefined) return; // answered again below, whatever runs now
      if (conversation.ended)
        throw refusal(
          ConversationFailure.ended,
          'This conversation has ended; send the request again to start a new one.',
        );
      if (conversation.active !== undefined) {
        throw refusal(
          ConversationFailure.busy,
          `Turn ${conversation.active.turn} is still running (run ${conversation.active.runId}); send the next request when it has answered.`,
        );
      }
      checkRequest(request, conversation.messages);
    },
  });

  const turnsPerRun = input.turnsPerRun ?? CONVERSATION_DEFAULTS.turnsPerRun;
  await wf.condition(
    () => conversation.ended || turnsThisRun >= turnsPerRun || wf.workflowInfo().continueAsNewSuggested,
  );
  await wf.condition(() => conversation.active === undefined && wf.allHandlersFinished());
  if (conversation.ended) return snapshot();
  return wf.continueAsNew<typeof conversationWorkflow>(
    fitted({
      schemaVersion: CONVERSATION_INPUT_VERSION,
      contextId: input.contextId,
      messages: conversation.messages,
      turns: conversation.turns,
      recentTurns: conversation.recent,
      ...(input.generation === undefined ? {} : { generation: input.generation }),
      ...(input.turnsPerRun === undefined ? {} : { turnsPerRun: input.turnsPerRun }),
    }),
  );

  async function runTurn(request: ChatTurnRequest): Promise<ChatTurnResult> {
    const earlier = earlierAnswer();
    if (earlier !== undefined) return earlier;
    const turn = conversation.turns + 1;
    const runId = turnWorkflowId(conversationWorkflowId(input.contextId), turn, input.generation);
    // Set before the first await: a request arriving while this one runs is refused by the validator.
    conversation.active = { turn, kind: request.kind, runId, startedAt: new Date().toISOString() };
    // Counted when started, failed or not: every turn's run keeps an id of its own.
    conversation.turns = turn;
    turnsThisRun += 1;
    try {
      const runInput = turnInput(request, conversation.messages);
      // A run whose answer is large carries it once; the turn's messages and its generated messages need it back.
      const result = withAnswerRestored(await wf.executeChild(agentWorkflow, { workflowId: runId, args: [runInput] }));
      conversation.messages = result.messages;
      const answer: Omit<ChatTurnResult, 'generatedMessages'> = {
        response: result.response,
        savedAiMessages: true,
        turn,
        runId,
        terminationReason: result.terminationReason,
        usage: result.usage,
      };
      const updateId = wf.currentUpdateInfo()?.id;
      if (updateId !== undefined) {
        // The run's generated messages are the ones after its input's conversation.
        const remembered: RememberedTurn = {
          kind: 'messageRange',
          updateId,
          answer,
          messages: { from: runInput.messages?.length ?? 0, to: result.messages.length },
        };
        conversation.recent = [...conversation.recent, remembered].slice(-CONVERSATION_DEFAULTS.rememberedTurns);
      }
      return { ...answer, generatedMessages: result.generatedMessages };
    } catch (error) {
      throw turnFailure(error, runId);
    } finally {
      conversation.active = undefined;
    }
  }
}

/**
 * The continue-as-new input made to fit in one Temporal payload: the oldest
 * remembered answers are dropped until it does (a retry of those turns then
 * runs again). The history itself always fits: every turn's run kept it
 * under its own, smaller budget.
 */
function fitted(next: ConversationInput): ConversationInput {
  let recentTurns = next.recentTurns ?? [];
  while (recentTurns.length > 0 && jsonBytes({ ...next, recentTurns }) > PAYLOAD_BUDGET_BYTES) {
    recentTurns = recentTurns.slice(1);
  }
  return { ...next, recentTurns };
}

/** The turn's run input: the settings, with the history and the new message or prompt as its conversation. */
export function turnInput(request: ChatTurnRequest, history: readonly ChatMessage[]): AgentInput {
  // The workflow owns the conversation: a message smuggled into the settings must not replace it.
  const settings: AgentInput = { ...(request.settings as AgentInput) };
  delete settings.message;
  delete settings.messages;
  const prompt: ChatMessage[] =
    request.kind === 'add-ai-message' && request.prompt ? [{ role: 'system', content: request.prompt }] : [];
  const messages = [...history, ...prompt];
  return {
    ...settings,
    // The conversation takes each turn's whole transcript from the result: it is its own history.
    resultMessages: 'all',
    ...(messages.length === 0 ? {} : { messages }),
    ...(request.kind === 'chat' && request.message !== undefined ? { message: request.message } : {}),
  };
}

/** Refuses a request that could not start a valid turn; the caller hears which field and why. */
function checkRequest(request: ChatTurnRequest, history: readonly ChatMessage[]): void {
  if (request === null || typeof request !== 'object')
    throw refusal(ConversationFailure.invalidRequest, 'The request must be an object.');
  if (request.kind === 'chat' && (typeof request.message !== 'string' || request.message.trim() === '')) {
    throw refusal(ConversationFailure.invalidRequest, 'message: give the human message');
  }
  if (request.kind !== 'chat' && history.length === 0 && !(request.kind === 'add-ai-message' && request.prompt)) {
    throw refusal(
      ConversationFailure.empty,
      `The conversation is empty, so there is nothing to ${request.kind === 'invoke' ? 'invoke the agent on' : 'answer'}; start it with POST /chat${request.kind === 'add-ai-message' ? ' or give a prompt' : ''}.`,
    );
  }
  const runInput = turnInput(request, history);
  const parsed = parseAgentInput(runInput);
  if (!parsed.ok)
    throw wf.ApplicationFailure.create({
      type: FailureType.invalidInput,
      message: `Invalid agent input: ${parsed.problems.join('; ')}`,
      details: [{ problems: parsed.problems }],
      nonRetryable: true,
    });
  checkSize(runInput, history);
}

/**
 * Refuses a turn whose run would stop at once for the size of its
 * conversation, before anything starts: past Temporal's payload limit the
 * turn's start would not just fail, it would end this workflow.
 */
function checkSize(runInput: AgentInput, history: readonly ChatMessage[]): void {
  const messages = runInput.messages ?? [];
  const withMessage: ChatMessage[] =
    runInput.message === undefined ? messages : [...messages, { role: 'user', content: runInput.message }];
  const projected = projectedRunBytes(withMessage, messages.length, runInput.instructions);
  if (projected <= CONTEXT_BUDGET_BYTES) return;
  throw refusal(
    ConversationFailure.tooLarge,
    `This conversation holds ${formatBytes(jsonBytes(history))}; with this request its next run would carry ${formatBytes(projected)}, ` +
      `more than the ${formatBytes(CONTEXT_BUDGET_BYTES)} a run keeps under Temporal's ${formatBytes(TEMPORAL_PAYLOAD_LIMIT_BYTES)} payload limit. ` +
      'Continue in a new context_id; this conversation can still be read.',
  );
}

function refusal(type: FailureTypeName, message: string): wf.ApplicationFailure {
  return wf.ApplicationFailure.create({ type, message, nonRetryable: true });
}

/** The turn's failure as the update's: the agent run's own type and message, and the run to look at. */
function turnFailure(error: unknown, runId: string): wf.ApplicationFailure {
  if (error instanceof wf.ChildWorkflowFailure) {
    const cause = error.cause;
    if (cause instanceof wf.ApplicationFailure) {
      return wf.ApplicationFailure.create({
        type: cause.type ?? FailureType.untyped,
        message: cause.message,
        details: [{ runId, ...firstDetail(cause.details) }],
        nonRetryable: true,
      });
    }
    if (cause instanceof wf.TerminatedFailure) {
      return wf.ApplicationFailure.create({
        type: FailureType.turnTerminated,
        message: `The turn's run was terminated in Temporal: ${cause.message}`,
        details: [{ runId }],
        nonRetryable: true,
      });
    }
    return wf.ApplicationFailure.create({
      type: FailureType.turnFailed,
      message: cause?.message ?? error.message,
      details: [{ runId }],
      nonRetryable: true,
    });
  }
  if (error instanceof wf.ApplicationFailure) return error;
  return wf.ApplicationFailure.create({
    type: FailureType.turnFailed,
    message: error instanceof Error ? error.message : String(error),
    details: [{ runId }],
    nonRetryable: true,
  });
}

/** The problems list of an input failure; a failed run's partial transcript stays with its own run. */
function firstDetail(details: readonly unknown[] | null | undefined): Record<string, unknown> {
  const first = details?.[0];
  if (typeof first !== 'object' || first === null) return {};
  const { problems, limit } = first as { problems?: unknown; limit?: unknown };
  return { ...(problems === undefined ? {} : { problems }), ...(limit === undefined ? {} : { limit }) };
}
