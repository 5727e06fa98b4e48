/**
 * Waits `ms`, or less when `signal` aborts meanwhile; never rejects, so a
 * poll loop that is stopped simply finds its signal aborted. The timer and
 * the listener are both removed either way.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
