import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { type Browser, type Page } from 'playwright-core';
import { startChatExample } from '../../examples/ai-sdk-chat/serve';
import { TEST_TOKEN, TestApi } from '../helpers/api';
import { TestEnv } from '../helpers/test-env';
import { launchChromium } from '../helpers/browser';

/**
 * The `useChat` example (examples/ai-sdk-chat: React 19, `@ai-sdk/react`, bundled by esbuild) in headless Chromium
 * (Debian's `chromium`, driven by playwright-core), against a real API, worker and dev server with the scripted
 * model: the page approves a call, and resumes a turn after a reload. Screenshots, at desktop and phone width, go to
 * `test/artifacts/ui-chat/` (or `UI_CHAT_SCREENSHOTS`).
 */

const SCREENSHOTS = process.env.UI_CHAT_SCREENSHOTS ?? path.join(__dirname, '../artifacts/ui-chat');

let env: TestEnv;
let api: TestApi;
let example: { url: string; close: () => Promise<void> };
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  env = await TestEnv.create();
  api = await TestApi.start(env);
  example = await startChatExample({ apiUrl: api.url, apiToken: TEST_TOKEN });
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await example?.close();
  await api?.close();
  await env?.close();
});

/** Photographs the page as `name` at its width (desktop) and at a phone's (375 px), where nothing overflows sideways. */
async function photograph(page: Page, name: string): Promise<void> {
  const desktop = page.viewportSize() ?? { width: 900, height: 700 };
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  await page.setViewportSize({ width: 375, height: 700 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect({ page: name, horizontalOverflow: overflow }).toEqual({ page: name, horizontalOverflow: 0 });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(desktop);
}

/** Opens the example on a new chat with the scripted `model`, and sends `text`. */
async function openAndSend(model: string, text: string): Promise<{ page: Page; chat: string }> {
  const chat = `chat-${randomUUID().slice(0, 8)}`;
  const page = await browser.newPage({ viewport: { width: 900, height: 700 } });
  await page.goto(`${example.url}/?chat=${chat}&model=${model}`);
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
  return { page, chat };
}

test('the page shows a call that waits for approval, approves it, and shows its output and the answer', async () => {
  const model = env.scenario([
    { toolCalls: [{ name: 'calculator', arguments: { expression: '12 * 12' } }] },
    { content: 'Approved: 12 * 12 is 144.' },
  ]);
  const { page } = await openAndSend(model, 'What is 12 * 12? Ask me first.');
  const approve = page.getByRole('button', { name: 'Approve' });
  await approve.waitFor({ timeout: 30_000 });
  await photograph(page, 'approval-requested');
  await approve.click();
  await page.getByText('Approved: 12 * 12 is 144.').waitFor({ timeout: 30_000 });
  const tool = page.getByRole('region', { name: 'Tool call calculator' });
  await expect(tool.locator('output').innerText()).resolves.toBe('144');
  await expect(page.getByRole('button', { name: 'Approve' }).count()).resolves.toBe(0);
  await photograph(page, 'approved');
  await page.close();
});

test('a reload in the middle of an answer resumes the turn to its end', async () => {
  // About 6 s of tokens: the reloaded page asks for the turn well before its end.
  const answer = 'This answer streams slowly, so the page is reloaded while it is being written, and resumes. '
    .repeat(4)
    .trim();
  const model = env.scenario([{ content: answer, tokenDelayMs: 80 }]);
  const { page, chat } = await openAndSend(model, 'Tell me something slowly.');
  await page.getByText('This answer').waitFor({ timeout: 30_000 });
  await page.reload();
  // The same chat, from the address; the turn comes back from its start, through GET /ui/chat/:id/stream.
  expect(new URL(page.url()).searchParams.get('chat')).toBe(chat);
  await page.getByText(answer).waitFor({ timeout: 30_000 });
  await page.locator('[data-status="ready"]').waitFor({ timeout: 30_000 });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'resumed.png'), fullPage: true });
  await page.close();
});
