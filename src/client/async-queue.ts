/**
 * A queue that several producers push into and one consumer reads with
 * `for await`: how two live sources (a run's durable events, its model
 * deltas) become one ordered feed. Reading ends after `close()`, or throws
 * what `fail()` was given, once everything pushed before has been read.
 */
export class AsyncQueue<T> {
  private readonly items: T[] = [];
  private waiting: (() => void) | undefined;
  private closed = false;
  private failure: { error: unknown } | undefined;

  push(item: T): void {
    if (this.closed) return;
    this.items.push(item);
    this.wake();
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  fail(error: unknown): void {
    this.failure ??= { error };
    this.close();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      const item = this.items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.closed) {
        if (this.failure !== undefined) throw this.failure.error;
        return;
      }
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }
}
