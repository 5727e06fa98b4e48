import { EVENT_STREAM_HEADERS } from './event-stream-headers';
import type { Client } from '@temporalio/client';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { getConversation } from '../client/conversations';
import { within } from '../client/model-stream-follower';
import { followRunEvents } from '../client/run-control';
import { RunNotFoundError } from '../client/run-not-found-error';
import { MODEL_STREAM_DEFAULTS } from '../shared/defaults/model-stream';
import { type ChatTurnResult } from '../shared/conversation';
import { toApiError } from './agent-client-errors';
import { errorBody } from '../http/errors';

/**
 * A chat turn as OpenAI-style `chat.completion.chunk` events: the text as it comes (`agent_runner.reset: true` discards
 * a retried attempt's), a last chunk with the turn's answer under `agent_runner`, a failure as `data: {"error": ...}`,
 * then `data: [DONE]`; a turn refused before it starts gets its JSON status and body.
 */

/** Whether the request asks for a streamed answer. */
export function wantsEventStream(request: FastifyRequest): boolean {
  return /\btext\/event-stream\b/i.test(request.headers.accept ?? '');
}

/** What a chat response's body is, from a turn's result. */
export type ChatBody = (result: ChatTurnResult) => Record<string, unknown>;

/** Sends the turn (`send`) on `contextId` and streams it to `reply`. */
export async function streamChatTurn(
  client: Client,
  contextId: string,
  send: () => Promise<ChatTurnResult>,
  reply: FastifyReply,
  chatBody: ChatBody,
  model: string,
): Promise<FastifyReply> {
  // A turn already running is not this request's: this one will be refused as busy, and must not stream the other.
  const running = (await getConversation(client, contextId).catch(() => undefined))?.activeTurn?.runId;
  const settled = send().then(
    (result) => ({ ok: true as const, result }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  // The turn's run, once the conversation has started it; a turn refused at once never gets one.
  const runId = await Promise.race([findTurnRun(client, contextId, settled, running), settled.then(() => undefined)]);
  if (runId === undefined) {
    const outcome = await settled;
    if (!outcome.ok) throw outcome.error;
  }

  reply.hijack();
  const stream = reply.raw;
  stream.writeHead(200, EVENT_STREAM_HEADERS);
  const id = `chatcmpl-${(runId ?? contextId).slice(-24)}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finishReason: string | null, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`;
  const closed = new AbortController();
  stream.on('close', () => closed.abort());
  try {
    stream.write(chunk({ role: 'assistant', content: '' }, null));
    if (runId !== undefined) {
      const following = followDeltas(
        client,
        runId,
        closed.signal,
        (text) => stream.write(chunk({ content: text }, null)),
        (reset) =>
          stream.write(
            chunk({}, null, { agent_runner: { reset: true, attempt: reset.attempt, reason: reset.reason } }),
          ),
      );
      // The run ends before its turn's answer comes back: the last deltas are in by then, or soon after.
      await settled;
      await within(following, MODEL_STREAM_DEFAULTS.drainWaitMs);
      closed.abort();
      await following;
    }
    const outcome = await settled;
    if (outcome.ok) {
      stream.write(
        chunk({}, 'stop', {
          agent_runner: { ...chatBody(outcome.result), run_id: outcome.result.runId, turn: outcome.result.turn },
        }),
      );
    } else {
      stream.write(`data: ${JSON.stringify(errorBody(toApiError(outcome.error, reply.request.id)))}\n\n`);
    }
    if (!stream.destroyed) stream.write('data: [DONE]\n\n');
  } finally {
    stream.end();
  }
  return reply;
}

/** Polls the conversation until a turn other than `running` is active; its run id (or undefined once the turn has settled). */
async function findTurnRun(
  client: Client,
  contextId: string,
  settled: Promise<unknown>,
  running: string | undefined,
): Promise<string | undefined> {
  let done = false;
  void settled.then(() => (done = true));
  while (!done) {
    const conversation = await getConversation(client, contextId).catch(() => undefined);
    const active = conversation?.activeTurn?.runId;
    if (active !== undefined && active !== running) return active;
    await new Promise((resolve) => setTimeout(resolve, MODEL_STREAM_DEFAULTS.discoverPollMs));
  }
  return undefined;
}

/** Hands the run's text deltas and resets over as they come, until the run ends or `signal` fires. */
async function followDeltas(
  client: Client,
  runId: string,
  signal: AbortSignal,
  onText: (text: string) => void,
  onReset: (reset: { attempt: number; reason: string }) => void,
): Promise<void> {
  // The conversation names the run just before it starts it: a moment of "not found" is expected.
  for (let tries = 0; tries < 50 && !signal.aborted; tries += 1) {
    try {
      for await (const event of followRunEvents(client, runId, { deltas: true, signal })) {
        if (event.type === 'model-text-delta') onText(event.text);
        else if (event.type === 'model-delta-reset') onReset(event);
      }
      return;
    } catch (error) {
      if (!RunNotFoundError.isInstance(error)) return;
      await new Promise((resolve) => setTimeout(resolve, MODEL_STREAM_DEFAULTS.discoverPollMs));
    }
  }
}
