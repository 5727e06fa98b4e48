import type { Log } from '../../src/dev-server/go-tool';
import { STACK_DEFAULTS } from '../../src/shared/defaults/stack';

/**
 * Polls `ready` until it says true, saying every so often what it waits for; throws after `timeoutMs`, or at once
 * when `ready` throws (the process died).
 */
export async function waitUntil(
  what: string,
  timeoutMs: number,
  log: Log,
  ready: () => Promise<boolean>,
): Promise<void> {
  const started = Date.now();
  let nextProgress = started + STACK_DEFAULTS.progressEveryMs;
  for (;;) {
    if (await ready()) return;
    const now = Date.now();
    if (now - started > timeoutMs)
      throw new Error(`Waited ${Math.round(timeoutMs / 1000)} s for ${what}; it is not up.`);
    if (now >= nextProgress) {
      log(`  waiting for ${what} (${Math.round((now - started) / 1000)} s)`);
      nextProgress += STACK_DEFAULTS.progressEveryMs;
    }
    await new Promise((resolve) => setTimeout(resolve, STACK_DEFAULTS.pollMs));
  }
}
