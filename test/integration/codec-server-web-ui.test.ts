import type { FastifyInstance } from 'fastify';
import { type Browser, type Page } from 'playwright-core';
import { AesGcmPayloadCodec } from '../../src/codec/aes-gcm-codec';
import { buildCodecServer } from '../../src/codec-server/server';
import { startDevServer, type StartedDevServer } from '../../src/dev-server/dev-server';
import { freePort } from '../../src/os/ports';
import { EncryptedAgent, newCodecKey } from '../helpers/encrypted-agent';
import { launchChromium } from '../helpers/browser';

/**
 * The Temporal web UI, in headless Chromium (Debian's `chromium`, driven by playwright-core), shows an agent's
 * encrypted payloads decrypted through the codec server to a browser that signed in to it, and in their encrypted
 * form to one that did not. Its own dev server with the UI (`--ui-codec-endpoint` pointing at the codec server),
 * its own worker encrypting with the key the codec server holds.
 */

const TOKEN = 'web-ui-codec-token-0123456789';
const PROMPT = 'Where is the rendezvous for the migration plan?';
const ANSWER = 'Behind the old mill at dawn.';
const SCREENSHOTS = process.env.CODEC_UI_SCREENSHOTS;

let server: StartedDevServer;
let codecServer: FastifyInstance;
let agent: EncryptedAgent;
let browser: Browser;
let uiUrl: string;
let codecUrl: string;
let workflowId: string;

beforeAll(async () => {
  const keys = [newCodecKey('ui-key')];
  // One host name for both, so the UI's page and the codec server are the same site and the sign-in cookie goes along.
  const codecPort = await freePort();
  const uiPort = await freePort();
  codecUrl = `http://127.0.0.1:${codecPort}`;
  uiUrl = `http://127.0.0.1:${uiPort}`;
  codecServer = buildCodecServer({ codec: new AesGcmPayloadCodec(keys), token: TOKEN, corsOrigins: [uiUrl] });
  await codecServer.listen({ host: '127.0.0.1', port: codecPort });
  server = await startDevServer({ port: 0, uiPort, uiCodecEndpoint: codecUrl, log: () => {} });
  agent = await EncryptedAgent.start(server.address, keys);
  workflowId = await agent.run(PROMPT, ANSWER);
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await agent?.close();
  await server?.stop();
  await codecServer?.close();
});

const runPage = () => `${uiUrl}/namespaces/default/workflows/${encodeURIComponent(workflowId)}`;

/** Waits until the run's page shows its input, then answers the page's text. */
async function shownText(page: Page, name: string): Promise<string> {
  await page.getByText(workflowId).first().waitFor({ timeout: 20_000 });
  // The codec's answer arrives after the page: wait for the UI's verdict on it.
  await page
    .locator('[data-testid="data-encoder-status-error"], [data-testid="data-encoder-status-success"]')
    .first()
    .waitFor({ timeout: 20_000 });
  if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
  return page.locator('body').innerText();
}

/**
 * What a person does in the UI's codec server settings (the status icon in the header): "Use my browser setting",
 * the same endpoint, "Include cross-origin credentials", Apply. The dev server's --ui-codec-endpoint sets no
 * credentials mode, so this browser setting is what lets the sign-in cookie go along.
 */
async function includeCredentials(page: Page): Promise<void> {
  await page.locator('[data-testid^="data-encoder-status"]').first().click();
  await page.locator('[data-testid="override-accordion"]').click();
  // The settings panel opens under the sticky header, and its inputs are visually hidden behind their labels: click them as the DOM does.
  await page.locator('#use-local-endpoint-radio').evaluate((input: HTMLInputElement) => input.click());
  await page.locator('#data-encoder-endpoint-input').fill(codecUrl);
  await page.locator('#pass-access-credentials').evaluate((input: HTMLInputElement) => input.click());
  expect(await page.locator('#pass-access-credentials').isChecked()).toBe(true);
  if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/settings.png`, fullPage: true });
  await page.locator('[data-testid="confirm-data-encoder-button"]').dispatchEvent('click');
}

describe('the Temporal web UI through the codec server', () => {
  test('a browser signed in to the codec server sees the decrypted prompt', async () => {
    const context = await browser.newContext();
    const login = await context.newPage();
    await login.goto(`${codecUrl}/login`);
    await login.locator('input[name="token"]').fill(TOKEN);
    await login.locator('form[action="/login"] button').click();
    await login.getByText('Signed in').waitFor();
    const page = await context.newPage();
    await page.goto(runPage());
    // Signed in, but the UI sends no credentials to the dev server's codec endpoint until told to.
    expect(await shownText(page, 'before-settings')).not.toContain(PROMPT);
    await includeCredentials(page);
    await page.goto(runPage());
    const text = await shownText(page, 'signed-in');
    expect(text).toContain(PROMPT);
    expect(text).toContain(ANSWER);
    await context.close();
  }, 60_000);

  test('a browser that did not sign in sees only the encrypted form, credentials included or not', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(runPage());
    await includeCredentials(page);
    await page.goto(runPage());
    const text = await shownText(page, 'not-signed-in');
    expect(text).not.toContain(PROMPT);
    expect(text).not.toContain(ANSWER);
    // The encrypted form: the payload's metadata in base64, "binary/encrypted" and the key id.
    expect(text).toContain(Buffer.from('binary/encrypted').toString('base64'));
    expect(text).toContain(Buffer.from('ui-key').toString('base64'));
    expect(text).toContain('Codec Server could not connect');
    await context.close();
  }, 60_000);
});
