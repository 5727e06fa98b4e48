/**
 * Failed sign-ins counted per client address in a fixed window: past the limit, every sign-in from that address
 * is refused until the window ends, so the token cannot be guessed at the server's speed.
 */
export class LoginThrottle {
  /** Client address to its window: when it started and how many sign-ins failed in it (oldest first). */
  private readonly windows = new Map<string, { startedAt: number; failures: number }>();

  constructor(private readonly limits: { failures: number; windowMs: number; maxAddresses: number }) {}

  /** Milliseconds until `address` may try again; 0 when it may now. */
  retryAfterMs(address: string, now: number = Date.now()): number {
    const window = this.windows.get(address);
    if (window === undefined || now - window.startedAt >= this.limits.windowMs) return 0;
    return window.failures >= this.limits.failures ? window.startedAt + this.limits.windowMs - now : 0;
  }

  /** Counts a failed sign-in from `address`; past `maxAddresses`, the oldest windows are forgotten. */
  recordFailure(address: string, now: number = Date.now()): void {
    const window = this.windows.get(address);
    if (window !== undefined && now - window.startedAt < this.limits.windowMs) {
      window.failures += 1;
      return;
    }
    this.windows.delete(address);
    while (this.windows.size >= this.limits.maxAddresses)
      this.windows.delete(this.windows.keys().next().value as string);
    this.windows.set(address, { startedAt: now, failures: 1 });
  }
}
