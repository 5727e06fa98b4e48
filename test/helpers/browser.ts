import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_PATH } from '../../scripts/system-packages';

/** Debian's Chromium, headless, quiet: no sandbox (root in CI), no GPU, no background traffic a test did not ask for. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
