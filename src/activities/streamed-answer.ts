import type { ModelDelta } from '../shared/model-stream-events';
import { CompletionAssembler } from './completion-stream';
import { sseData } from './sse-data';

/**
 * Reads a chat-completions stream to its end, handing each delta to `onDelta`, and returns how it ended: whole, a chunk
 * it cannot read, an error the provider streamed, or broken off. Only an aborted `signal` throws.
 */

/** How a stream ended. */
export type StreamedAnswer =
  | { kind: 'complete'; completion: unknown; chunks: number }
  /** `sample` is the offending chunk's text, quoted (redacted) in the failure. */
  | { kind: 'invalid'; problem: string; sample: string }
  /** The provider sent an error object in the stream after `chunks` chunks: classified as the status it names. */
  | { kind: 'error'; error: object; chunks: number }
  | { kind: 'broken'; reason: string; chunks: number };

export async function readStreamedAnswer(
  body: ReadableStream<Uint8Array>,
  onDelta: (delta: ModelDelta) => void,
  signal: AbortSignal,
): Promise<StreamedAnswer> {
  const assembler = new CompletionAssembler();
  let sawDone = false;
  const events = sseData(body);
  try {
    for await (const data of events) {
      if (data.trim() === '[DONE]') {
        sawDone = true;
        break;
      }
      const reading = assembler.add(data);
      if (!reading.ok)
        return reading.error === undefined
          ? { kind: 'invalid', problem: reading.problem, sample: data }
          : { kind: 'error', error: reading.error, chunks: assembler.chunkCount - 1 };
      for (const delta of reading.deltas) onDelta(delta);
    }
  } catch (error) {
    if (signal.aborted) throw error;
    const cause =
      error instanceof Error && error.cause instanceof Error
        ? `${error.message} (${error.cause.message})`
        : error instanceof Error
          ? error.message
          : String(error);
    return { kind: 'broken', reason: `the connection failed: ${cause}`, chunks: assembler.chunkCount };
  } finally {
    // Closes the connection when the stream was left early (an invalid chunk, `[DONE]` before the body's end).
    await events.return(undefined).catch(() => undefined);
    await body.cancel().catch(() => undefined);
  }
  // Some servers end the body without `[DONE]`; a finish reason still says the answer is whole.
  if (!sawDone && !assembler.finished) {
    return {
      kind: 'broken',
      reason: 'the stream ended before the answer was complete (no finish reason, no [DONE])',
      chunks: assembler.chunkCount,
    };
  }
  return { kind: 'complete', completion: assembler.completion(), chunks: assembler.chunkCount };
}
