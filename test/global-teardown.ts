import { rm } from 'node:fs/promises';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { stopTestServer?: () => Promise<void> }).stopTestServer?.();
  if (process.env.AGENT_TEST_WORKFLOW_BUNDLE) await rm(process.env.AGENT_TEST_WORKFLOW_BUNDLE, { force: true });
}
