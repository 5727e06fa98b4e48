import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ChatTurnRequest, ChatTurnResult, ConversationState } from '../shared/conversation';

/** The conversation workflow's update, query and signal: workflow-safe, shared by the workflow and its callers. */

export const chatUpdate = defineUpdate<ChatTurnResult, [ChatTurnRequest]>('chat');
export const conversationQuery = defineQuery<ConversationState>('conversation');
/** Ends the conversation once no turn is running; its workflow completes with the history. */
export const endConversationSignal = defineSignal<[]>('end');
