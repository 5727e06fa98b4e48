import type { ChatMessage } from '../shared/messages';
import { MODEL_REQUEST_CACHE } from '../shared/defaults/sizes';

interface Entry {
  messages: ChatMessage[];
  bytes: number;
  offeredAt: number;
}

/**
 * Conversations this worker's workflows handed to their next model call, each taken once; bounded in bytes and age so
 * those whose call ran elsewhere do not pile up.
 */
export class ModelRequestCache {
  private static process: ModelRequestCache | undefined;
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  /** Calls that took their conversation from memory, and calls that found none and asked the workflow. */
  readonly stats = { taken: 0, missed: 0 };

  constructor(
    private readonly maxBytes: number = MODEL_REQUEST_CACHE.maxBytes,
    private readonly maxAgeMs: number = MODEL_REQUEST_CACHE.maxAgeMs,
    private readonly now: () => number = Date.now,
  ) {}

  /** The process's cache: the sink and the `callModel` activity of one worker process share it. */
  static forProcess(): ModelRequestCache {
    ModelRequestCache.process ??= new ModelRequestCache();
    return ModelRequestCache.process;
  }

  /** Holds `messages` for the call `key` names; a conversation larger than the whole cache is not held. */
  offer(key: string, messages: ChatMessage[], bytes: number): void {
    this.remove(key);
    if (bytes > this.maxBytes) return;
    this.entries.set(key, { messages, bytes, offeredAt: this.now() });
    this.bytes += bytes;
    this.evict();
  }

  /** The messages held for `key` if there are exactly `count` of them, removed from the cache; otherwise undefined. */
  take(key: string, count: number): ChatMessage[] | undefined {
    this.evict();
    const entry = this.entries.get(key);
    this.remove(key);
    const messages = entry?.messages.length === count ? entry.messages : undefined;
    if (messages === undefined) this.stats.missed += 1;
    else this.stats.taken += 1;
    return messages;
  }

  /** Conversations held now. */
  get size(): number {
    return this.entries.size;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  private evict(): void {
    const oldest = this.now() - this.maxAgeMs;
    // A Map iterates in insertion order, and an offer re-inserts: the first entry is the oldest.
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.maxBytes && entry.offeredAt >= oldest) break;
      this.remove(key);
    }
  }
}

/** The key of one model call: its workflow execution and iteration. */
export function modelRequestKey(workflowId: string, runId: string, iteration: number): string {
  return `${workflowId}\u0000${runId}\u0000${iteration}`;
}
