import { type ModelStreamEvent } from '../../shared/model-stream-events';
import { type RunEvent } from '../../shared/run-events';
import { type UiMessageChunk } from './ui-message-chunks';

/**
 * A turn's run events and deltas as UI message chunks in the order the AI SDK's client accepts: a step per model call,
 * text opened before its deltas and closed at `model-response`, a tool call's input before its approval or output.
 */

/** What a translated event asks of the stream besides its chunks. */
export interface Translation {
  chunks: UiMessageChunk[];
  /** The call now waits for a person's decision: the stream ends here, the answer comes with the next request. */
  approvalRequested?: { callId: string; toolName: string; input: unknown; reason?: string };
  /** The run ended: nothing follows. */
  ended?: boolean;
}

/** The runner's id of a call (`src/workflows/rules/call-identity.ts`'s `runnerCallId`). */
function runnerCallId(iteration: number, toolIndex: number): string {
  return `call-${iteration}-${toolIndex + 1}`;
}

/** Logged arguments cut to 500 characters may be valid JSON that was cut: only shorter text is known broken. */
function isBrokenJson(text: string): boolean {
  if (text.length >= 500) return false;
  try {
    JSON.parse(text);
    return false;
  } catch {
    return true;
  }
}

/** Translates one turn's events, in order, keeping what is open between them. */
export class ChunkTranslator {
  private iteration = 0;
  private stepOpen = false;
  private text: string | undefined;
  private reasoning: string | undefined;
  private textInStep = false;
  /** Calls whose `tool-input-start` went out, with the name and the argument text streamed so far. */
  private readonly streamingInputs = new Map<string, { toolName: string; text: string }>();
  /** Calls whose whole input went out (`tool-input-available`). */
  private readonly inputs = new Set<string>();
  private readonly denied = new Set<string>();
  private parts = 0;

  translate(event: RunEvent | ModelStreamEvent): Translation {
    const chunks: UiMessageChunk[] = [];
    switch (event.type) {
      case 'iteration-start':
        this.closeStep(chunks);
        this.iteration = event.iteration;
        this.stepOpen = true;
        chunks.push({ type: 'start-step' });
        break;
      case 'model-text-delta':
        this.openStep(chunks);
        this.closeReasoning(chunks);
        if (this.text === undefined) {
          this.text = `text-${(this.parts += 1)}`;
          chunks.push({ type: 'text-start', id: this.text });
        }
        this.textInStep = true;
        chunks.push({ type: 'text-delta', id: this.text, delta: event.text });
        break;
      case 'model-reasoning-delta':
        this.openStep(chunks);
        if (this.reasoning === undefined) {
          this.reasoning = `reasoning-${(this.parts += 1)}`;
          chunks.push({ type: 'reasoning-start', id: this.reasoning });
        }
        chunks.push({ type: 'reasoning-delta', id: this.reasoning, delta: event.text });
        break;
      case 'model-tool-call-delta':
        this.openStep(chunks);
        this.toolCallDelta(event.toolIndex, event.name, event.arguments, chunks);
        break;
      case 'model-delta-reset':
        // The attempt failed and is asked again: what it showed goes, and the next attempt streams from the start.
        this.text = undefined;
        this.reasoning = undefined;
        this.textInStep = false;
        for (const callId of this.streamingInputs.keys())
          if (!this.inputs.has(callId)) this.streamingInputs.delete(callId);
        if (this.stepOpen) chunks.push({ type: 'reset-step' });
        break;
      case 'model-response':
        this.openStep(chunks);
        this.closeReasoning(chunks);
        // A follower that missed the deltas (it came late, or cannot reach the worker) still shows the text, as logged.
        if (!this.textInStep && this.text === undefined && event.content !== undefined && event.content !== '') {
          const id = `text-${(this.parts += 1)}`;
          chunks.push({ type: 'text-start', id }, { type: 'text-delta', id, delta: event.content });
          chunks.push({ type: 'text-end', id });
        }
        this.closeText(chunks);
        break;
      case 'approval-request': {
        this.inputAvailable(event.callId, event.toolName, event.arguments, chunks);
        return {
          chunks,
          approvalRequested: {
            callId: event.callId,
            toolName: event.toolName,
            input: event.arguments,
            ...(event.reason === undefined ? {} : { reason: event.reason }),
          },
        };
      }
      case 'approval-decision':
        if (event.decision === 'deny') {
          this.inputAvailable(event.callId, event.toolName, event.arguments, chunks);
          this.denied.add(event.callId);
          chunks.push({ type: 'tool-output-denied', toolCallId: event.callId });
        }
        break;
      case 'tool-call-start':
        this.openStep(chunks);
        if (event.argumentsText !== undefined && !this.inputs.has(event.callId) && isBrokenJson(event.argumentsText)) {
          this.closeText(chunks);
          this.inputs.add(event.callId);
          chunks.push({
            type: 'tool-input-error',
            toolCallId: event.callId,
            toolName: event.toolName,
            input: event.argumentsText,
            errorText: 'The arguments are not valid JSON: the tool answers the model with the error.',
            dynamic: true,
          });
        } else this.inputAvailable(event.callId, event.toolName, event.arguments ?? event.argumentsText, chunks);
        break;
      case 'tool-call-end':
        if (this.denied.has(event.callId)) break;
        this.inputAvailable(event.callId, event.toolName, undefined, chunks);
        chunks.push(
          event.isError
            ? { type: 'tool-output-error', toolCallId: event.callId, errorText: event.output, dynamic: true }
            : { type: 'tool-output-available', toolCallId: event.callId, output: event.output, dynamic: true },
        );
        break;
      case 'run-end':
        this.closeReasoning(chunks);
        this.closeText(chunks);
        this.closeStep(chunks);
        if (event.status === 'failed') {
          chunks.push({ type: 'error', errorText: `${event.error.type}: ${event.error.message}` });
        } else if (event.terminationReason.type === 'external') {
          chunks.push({ type: 'abort', reason: event.terminationReason.reason ?? 'the run was stopped' });
        } else {
          chunks.push({ type: 'finish', finishReason: 'stop' });
        }
        return { chunks, ended: true };
      default:
        break;
    }
    return { chunks };
  }

  /** What closes a stream that stops before the run ends (a call waits for approval, or the follower gives up). */
  pause(finishReason: 'tool-calls' | 'other'): UiMessageChunk[] {
    const chunks: UiMessageChunk[] = [];
    this.closeReasoning(chunks);
    this.closeText(chunks);
    this.closeStep(chunks);
    chunks.push({ type: 'finish', finishReason });
    return chunks;
  }

  private toolCallDelta(
    toolIndex: number,
    name: string | undefined,
    argumentsText: string | undefined,
    chunks: UiMessageChunk[],
  ): void {
    const toolCallId = runnerCallId(this.iteration, toolIndex);
    if (this.inputs.has(toolCallId)) return;
    let streaming = this.streamingInputs.get(toolCallId);
    if (streaming === undefined) {
      // A fragment before the call's name cannot open its part: the input comes whole with the call's event.
      if (name === undefined) return;
      this.closeText(chunks);
      streaming = { toolName: name, text: '' };
      this.streamingInputs.set(toolCallId, streaming);
      chunks.push({ type: 'tool-input-start', toolCallId, toolName: name, dynamic: true });
    }
    if (argumentsText !== undefined && argumentsText !== '') {
      streaming.text += argumentsText;
      chunks.push({ type: 'tool-input-delta', toolCallId, inputTextDelta: argumentsText });
    }
  }

  private inputAvailable(callId: string, toolName: string, input: unknown, chunks: UiMessageChunk[]): void {
    if (this.inputs.has(callId)) return;
    this.openStep(chunks);
    this.closeText(chunks);
    this.inputs.add(callId);
    chunks.push({ type: 'tool-input-available', toolCallId: callId, toolName, input: input ?? {}, dynamic: true });
  }

  private openStep(chunks: UiMessageChunk[]): void {
    if (this.stepOpen) return;
    this.stepOpen = true;
    chunks.push({ type: 'start-step' });
  }

  private closeStep(chunks: UiMessageChunk[]): void {
    if (!this.stepOpen) return;
    this.closeReasoning(chunks);
    this.closeText(chunks);
    this.stepOpen = false;
    this.textInStep = false;
    chunks.push({ type: 'finish-step' });
  }

  private closeText(chunks: UiMessageChunk[]): void {
    if (this.text === undefined) return;
    chunks.push({ type: 'text-end', id: this.text });
    this.text = undefined;
  }

  private closeReasoning(chunks: UiMessageChunk[]): void {
    if (this.reasoning === undefined) return;
    chunks.push({ type: 'reasoning-end', id: this.reasoning });
    this.reasoning = undefined;
  }
}
