import type { Client } from '@temporalio/client';
import type { FastifyReply } from 'fastify';
import { getAgentState } from '../../client';
import { getConversation } from '../../client/conversations';
import { withModelDeltas } from '../../client/model-stream-follower';
import { sleep } from '../../client/abortable-sleep';
import { MODEL_STREAM_DEFAULTS } from '../../shared/defaults/model-stream';
import { UI_CHAT_DEFAULTS } from '../../shared/defaults/ui-chat';
import { approvalIdOf, signApproval } from '../approval-binding';
import { toApiError } from '../agent-client-errors';
import type { RunSubscriptions } from '../run-subscriptions';
import { ChunkTranslator } from './chunk-translator';
import { DONE_FRAME, UI_MESSAGE_STREAM_HEADERS, chunkFrame, type UiMessageChunk } from './ui-message-chunks';

/** What a turn's stream needs from the process. */
export interface TurnStreamDeps {
  client: Client;
  /** One follow per run, shared with every stream on it. */
  subscriptions: RunSubscriptions;
  /** Open streams, ended when the server closes. */
  streams: Set<AbortController>;
  keepAliveMs: number;
  /** Waits for a turn to be recorded, one per run, shared by every stream on it. */
  settling: Map<string, Promise<void>>;
  /** Aborted when the server closes: no wait outlives it. */
  closing: AbortSignal;
  /** Signs each approval request the AI SDK's way, and answers must carry the signature back. */
  approvalSecret?: string;
}

/** Which turn to stream, and from where. */
export interface TurnStreamTarget {
  contextId: string;
  runId: string;
  /**
   * Calls just decided by this request: the stream goes on after the last of their approval requests (the client
   * holds everything before it). Unset: the turn from its start, which the AI SDK replaces its message with.
   */
  continueAfter?: ReadonlySet<string>;
}

/**
 * Streams a turn's run as the AI SDK's UI message stream: its events (one shared follow per run: no query per
 * second per stream) and its model deltas, as chunks, from `start` (the message id is the run's) until the run
 * ends or a call waits for a decision, then `data: [DONE]`. A failure after the stream began is an `error` chunk.
 */
export async function streamTurn(deps: TurnStreamDeps, reply: FastifyReply, target: TurnStreamTarget): Promise<void> {
  const { client } = deps;
  const { runId } = target;
  reply.hijack();
  const stream = reply.raw;
  stream.writeHead(200, UI_MESSAGE_STREAM_HEADERS);
  const closed = new AbortController();
  deps.streams.add(closed);
  stream.on('close', () => closed.abort());
  const keepAlive = setInterval(() => stream.write(': keep-alive\n\n'), deps.keepAliveMs);
  const write = (chunks: readonly UiMessageChunk[]) => {
    for (const chunk of chunks) if (!stream.destroyed) stream.write(chunkFrame(chunk));
  };
  const translator = new ChunkTranslator();
  const skipping = new Set(target.continueAfter ?? []);
  let ended = false;
  try {
    write([{ type: 'start', messageId: runId }]);
    for await (const event of withModelDeltas(
      client,
      runId,
      (signal) => deps.subscriptions.follow(runId, 0, signal),
      closed.signal,
      false,
    )) {
      const translation = translator.translate(event);
      if (skipping.size > 0) {
        if (event.type === 'approval-request') skipping.delete(event.callId);
        continue;
      }
      write(translation.chunks);
      const asked = translation.approvalRequested;
      // A request decided since (by this chat, the console or the CLI) is followed by its outcome: no question.
      if (asked !== undefined && (await stillWaits(client, runId, asked.callId))) {
        const approvalId = approvalIdOf({ contextId: target.contextId, runId, callId: asked.callId });
        const signature =
          deps.approvalSecret === undefined
            ? undefined
            : signApproval(deps.approvalSecret, { approvalId, toolCallId: asked.callId, ...asked });
        write([
          {
            type: 'tool-approval-request',
            approvalId,
            toolCallId: asked.callId,
            ...(asked.reason === undefined ? {} : { reason: asked.reason }),
            ...(signature === undefined ? {} : { signature }),
          },
          ...translator.pause('tool-calls'),
        ]);
        return;
      }
      if (translation.ended) {
        ended = true;
        break;
      }
    }
    // The conversation records the turn just after its run ends: the chat's next message must not find it busy.
    if (ended) await sharedSettle(deps, target.contextId, runId);
  } catch (error) {
    if (!closed.signal.aborted) write([{ type: 'error', errorText: toApiError(error, reply.request.id).message }]);
  } finally {
    clearInterval(keepAlive);
    deps.streams.delete(closed);
    if (!stream.destroyed) stream.write(DONE_FRAME);
    stream.end();
  }
}

/** Whether the run still waits for a decision on `callId` (one `state` query). */
async function stillWaits(client: Client, runId: string, callId: string): Promise<boolean> {
  const state = await getAgentState(client, runId);
  return state.pendingApprovals.some((pending) => pending.callId === callId);
}

/** {@link turnSettled} once for all the streams of this process on `runId`. */
function sharedSettle(deps: TurnStreamDeps, contextId: string, runId: string): Promise<void> {
  let settling = deps.settling.get(runId);
  if (settling === undefined) {
    settling = turnSettled(deps.client, contextId, runId, deps.closing).finally(() => deps.settling.delete(runId));
    deps.settling.set(runId, settling);
  }
  return settling;
}

/** Waits, a bounded while, until the conversation's turn in progress is no longer `runId`'s. */
async function turnSettled(client: Client, contextId: string, runId: string, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + UI_CHAT_DEFAULTS.settleWaitMs;
  while (Date.now() < deadline) {
    // The conversation records the turn within a workflow task of the run's end: look after one poll interval.
    await sleep(MODEL_STREAM_DEFAULTS.discoverPollMs, signal);
    if (signal.aborted) return;
    const conversation = await getConversation(client, contextId).catch(() => undefined);
    if (conversation?.activeTurn?.runId !== runId) return;
  }
}
