import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { AgentResult } from '../../src/shared/agent-result';
import { eventsQuery } from '../../src/workflow-contract/definitions';
import { everythingStdio } from '../helpers/mcp-servers';
import { TestEnv } from '../helpers/test-env';
import { startConsoleApi, testPrincipal } from '../helpers/console';
import { launchChromium } from '../helpers/browser';
import { defineAgentTool } from '../../src/tools/define-agent-tool';

/**
 * The console in headless Chromium (Debian's, driven by playwright-core) against a real API, worker and dev server
 * with the scripted model: sign in, see a waiting call in the inbox, modify its arguments and approve, watch the run
 * to its end; deny from a second browser while the first shows the call, and see it leave the first; a reader is
 * offered no decision; an MCP server's question is answered from a run's page, and the runs list is filtered. Each page passes axe-core with no serious or critical violation, and is photographed at
 * desktop and phone width into test-output/console/ (gitignored).
 */

const SHOTS = path.join(__dirname, '../../test-output/console');
/** A nested agent: its run is a child of the call that started it, and the run's page folds it under that call. */
const researcher = defineAgentTool({
  name: 'researcher',
  description: 'Works a sum out.',
  instructions: 'Use the calculator.',
  tools: ['calculator'],
});
/** The one model name the worker has a price for: its runs have a cost (`AgentCostUsd`). */
const PRICED_MODEL = 'console-priced';
const admin = testPrincipal('alice', ['admin']);
const second = testPrincipal('bob', ['approvals:decide', 'runs:read']);
const reader = testPrincipal('rita-reader', ['runs:read']);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let env: TestEnv;
let api: { app: FastifyInstance; url: string };
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  env = await TestEnv.create({
    extraTools: [researcher],
    mcpServers: { everything: { ...everythingStdio(), timeout: '2 minutes' } },
    prices: { [PRICED_MODEL]: { inputPerMTok: 3, outputPerMTok: 15 } },
  });
  api = await startConsoleApi(env, [admin.principal, second.principal, reader.principal], {
    temporalUiUrl: 'http://127.0.0.1:8233',
  });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await api?.app.close();
  await env?.close();
});

/** The model's last answer, streamed a word at a time so the run's page shows it being written. */
const closing = (file: string) =>
  `Wrote ${file}. It holds one line for the release notes, edited by a person before it was written to disk.`;

/** A run whose first answer writes `file` (waiting for approval), then says it is done, streamed slowly. */
async function startApprovalRun(file: string): Promise<string> {
  const model = env.scenario([
    { toolCalls: [{ name: 'write_file', arguments: { path: file, content: 'first draft' } }] },
    { content: closing(file), tokenDelayMs: 150 },
  ]);
  const handle = await env.start({
    model,
    tools: ['write_file'],
    message: `Write ${file} for the release notes.`,
    approval: { tools: ['write_file'] },
  });
  return handle.workflowId;
}

/** A browser context signed in to the console with `token`, at the inbox. */
async function signedIn(
  token: string,
  viewport = { width: 1280, height: 900 },
): Promise<{ context: BrowserContext; page: Page }> {
  // The page's CSP allows only its own scripts: axe-core is injected past it, as a test tool.
  const context = await browser.newContext({ viewport, bypassCSP: true });
  const page = await context.newPage();
  await page.goto(`${api.url}/console/`);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Approvals' }).waitFor();
  return { context, page };
}

/** axe-core's serious and critical violations on the page as it is now. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe;
    return (await axe.run()).violations;
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/** Photographs the page at desktop width and at a phone's (375 px), and checks it with axe-core at both. */
async function photograph(page: Page, name: string): Promise<void> {
  const desktop = page.viewportSize() ?? { width: 1280, height: 900 };
  expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
  await page.screenshot({ path: path.join(SHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 375, height: 800 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect({ page: name, horizontalOverflow: overflow }).toEqual({ page: name, horizontalOverflow: 0 });
  expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
  await page.screenshot({ path: path.join(SHOTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(desktop);
}

describe('the console in a browser', () => {
  test('sign in, modify a waiting call’s arguments, approve, and watch the run to its end', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(`${api.url}/console/`);
    await photograph(page, 'sign-in');
    await page.getByLabel('API token').fill('not-the-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('API token').fill(admin.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Approvals' }).waitFor();
    // The cookie is out of the page's reach.
    expect(await page.evaluate(() => document.cookie)).toBe('');

    const runId = await startApprovalRun('notes.md');
    const card = page.getByRole('article').filter({ hasText: runId });
    await card.waitFor({ timeout: 20_000 });
    expect(await card.locator('pre').innerText()).toContain('"content": "first draft"');
    await photograph(page, 'inbox');

    await card.getByRole('button', { name: 'Modify…' }).click();
    const editor = card.getByLabel(/Arguments/);
    await editor.fill('{ "path": "notes.md", ');
    await card.getByText(/Not JSON/).waitFor();
    expect(await card.getByRole('button', { name: 'Approve with these arguments' }).isDisabled()).toBe(true);
    await editor.fill('["not", "an", "object"]');
    await card.getByText('The arguments must be an object.').waitFor();
    // Checked against write_file's JSON Schema from the run's catalog before anything is sent.
    await editor.fill('{ "path": 5, "content": "x" }');
    await card
      .getByText(/^#\/path: /)
      .first()
      .waitFor();
    expect(await card.getByRole('button', { name: 'Approve with these arguments' }).isDisabled()).toBe(true);
    await editor.fill(JSON.stringify({ path: 'notes.md', content: 'edited in the console' }, null, 2));
    await photograph(page, 'inbox-modify');
    // The run's page, open in a second tab before the approval, shows the model's answer as it is written.
    const runPage = await context.newPage();
    await runPage.goto(`${api.url}/console/#/runs/${encodeURIComponent(runId)}`);
    await runPage.getByRole('heading', { name: 'Iteration 1' }).waitFor({ timeout: 20_000 });
    await card.getByRole('button', { name: 'Approve with these arguments' }).click();
    await card.waitFor({ state: 'detached', timeout: 10_000 });
    const writing = runPage.locator('.streaming');
    await writing.getByText(/^Wrote notes\.md\./).waitFor({ timeout: 20_000 });
    const partial = await writing.locator('p').innerText();
    expect(partial.length).toBeLessThan(closing('notes.md').length);
    await runPage.getByText('The run ended: completed.').waitFor({ timeout: 30_000 });
    expect(await runPage.locator('.streaming').count()).toBe(0);
    await runPage.close();

    await page.goto(`${api.url}/console/#/runs/${encodeURIComponent(runId)}`);
    await page.getByText('The run ended: completed.').waitFor({ timeout: 20_000 });
    await page.getByText(closing('notes.md')).waitFor();
    expect(await page.getByText('approved by alice').count()).toBe(1);
    const link = await page.getByRole('link', { name: 'Open in the Temporal web UI' }).getAttribute('href');
    expect(link).toBe(`http://127.0.0.1:8233/namespaces/default/workflows/${encodeURIComponent(runId)}`);
    await photograph(page, 'run');
    const result = (await env.client.workflow.getHandle(runId).result()) as AgentResult;
    expect(result.response).toBe(closing('notes.md'));
    expect(readFileSync(path.join(env.workspace, 'notes.md'), 'utf8')).toBe('edited in the console');

    await page.goto(`${api.url}/console/#/runs`);
    await page.getByRole('link', { name: runId }).waitFor({ timeout: 20_000 });
    await photograph(page, 'runs');
    await context.close();
  }, 120_000);

  test('a call denied from a second browser leaves the first one’s inbox at once; a reader is offered no decision', async () => {
    const first = await signedIn(admin.token);
    const readerView = await signedIn(reader.token);
    const runId = await startApprovalRun('denied.md');
    const firstCard = first.page.getByRole('article').filter({ hasText: runId });
    await firstCard.waitFor({ timeout: 20_000 });
    const readerCard = readerView.page.getByRole('article').filter({ hasText: runId });
    await readerCard.waitFor({ timeout: 20_000 });
    await readerView.page.getByText('Your scopes let you see these calls, not decide them.').waitFor();
    expect(await readerCard.getByRole('button').count()).toBe(0);
    await photograph(readerView.page, 'inbox-reader');

    const deciding = await signedIn(second.token);
    const card = deciding.page.getByRole('article').filter({ hasText: runId });
    await card.getByRole('button', { name: 'Deny…' }).click();
    await card.getByLabel('Reason for the model').fill('Not in the release notes.');
    await card.getByRole('button', { name: 'Deny', exact: true }).click();
    const started = Date.now();
    await firstCard.waitFor({ state: 'detached', timeout: 10_000 });
    await readerCard.waitFor({ state: 'detached', timeout: 10_000 });
    expect(Date.now() - started).toBeLessThan(5_000);
    await env.client.workflow.getHandle(runId).result();
    // The reader's run page offers no fork (nor, while the run lives, a message box or Terminate).
    await readerView.page.goto(`${api.url}/console/#/runs/${encodeURIComponent(runId)}`);
    await readerView.page.getByText('The run ended: completed.').waitFor({ timeout: 20_000 });
    await readerView.page.getByText('denied by bob').waitFor();
    expect(await readerView.page.getByRole('button', { name: /Fork from here/ }).count()).toBe(0);
    for (const view of [first, readerView, deciding]) await view.context.close();
  }, 120_000);

  test('a run’s page answers ask_question, forks from an iteration, terminates a waiting run and stops one', async () => {
    const { context, page } = await signedIn(admin.token);
    const model = env.scenario([
      { toolCalls: [{ name: 'ask_question', arguments: { question: 'Which colour should the cover be?' } }] },
      { content: 'Blue it is.' },
      { content: 'The fork answers again.' },
    ]);
    const asking = await env.start({ model, tools: ['ask_question'], message: 'Pick a cover colour.' });
    await page.goto(`${api.url}/console/#/runs/${encodeURIComponent(asking.workflowId)}`);
    const answerBox = page.getByLabel('Answer: Which colour should the cover be?');
    await answerBox.waitFor({ timeout: 20_000 });
    await answerBox.fill('Blue');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('The run ended: completed.').waitFor({ timeout: 20_000 });
    await page.getByText('Blue it is.').waitFor();

    await page.getByRole('button', { name: 'Fork from here (iteration 2)' }).click();
    await page.waitForFunction((source) => !window.location.hash.includes(source), asking.workflowId);
    const forkId = decodeURIComponent(await page.evaluate(() => window.location.hash.replace('#/runs/', '')));
    await page.getByText('The run ended: completed.').waitFor({ timeout: 20_000 });
    expect(forkId).not.toBe(asking.workflowId);

    const waiting = await startApprovalRun('stopped.md');
    await page.goto(`${api.url}/console/#/runs/${encodeURIComponent(waiting)}`);
    await page.getByText('waiting_for_approval').first().waitFor({ timeout: 20_000 });
    await page.getByLabel('Reason to stop or terminate').fill('Not needed any more.');
    await page.getByRole('button', { name: 'Terminate' }).click();
    await page.getByText('The run ended: terminated.').waitFor({ timeout: 20_000 });

    // Stop asks first, then ends a run whose stopWhen has external() at its next check, cancelling nothing.
    const counting = env.scenario(
      Array.from({ length: 30 }, (_, index) => ({
        delayMs: 400,
        toolCalls: [{ name: 'calculator', arguments: { expression: `${index} + 1` } }],
      })),
    );
    const stoppable = await env.start({
      model: counting,
      tools: ['calculator'],
      message: 'Count slowly.',
      stopWhen: { any: [{ external: true }, { maxIterations: 30 }] },
    });
    await page.goto(`${api.url}/console/#/runs/${encodeURIComponent(stoppable.workflowId)}`);
    await page.getByLabel('Reason to stop or terminate').fill('Counted enough.');
    await page.getByRole('button', { name: 'Stop…' }).click();
    await page.getByRole('group', { name: 'Confirm the stop' }).getByText('any other records the request').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByRole('group', { name: 'Confirm the stop' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Stop…' }).click();
    await photograph(page, 'run-stop');
    await page.getByRole('button', { name: 'Confirm stop' }).click();
    await page.getByText('The run ended: completed.').waitFor({ timeout: 30_000 });
    const stopped = (await stoppable.result()) as AgentResult;
    expect(stopped.terminationReason).toMatchObject({ type: 'stop_condition', condition: 'external()' });
    expect(stopped.iterations).toBeLessThan(30);
    await context.close();
  }, 120_000);

  test('the runs list filters by status and search attribute; a run’s page answers an MCP server’s question', async () => {
    const { context, page } = await signedIn(admin.token);
    const model = env.scenario([
      { toolCalls: [{ name: 'everything__trigger-elicitation-request', arguments: {} }] },
      { content: 'Thanks, Ada.' },
    ]);
    const asking = await env.start({ model, tools: ['everything__*'], message: 'Ask me for my name.' });
    const waiting = await startApprovalRun('filtered.md');

    await page.goto(`${api.url}/console/#/runs`);
    await page.getByLabel('Status').selectOption('waiting_for_input');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('link', { name: asking.workflowId }).waitFor({ timeout: 20_000 });
    // The unfiltered list showed both: the filtered one has come once the other run's row is gone.
    await page.getByRole('link', { name: waiting }).waitFor({ state: 'detached', timeout: 20_000 });
    expect(await page.getByRole('link', { name: waiting }).count()).toBe(0);
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Search attributes').fill(`WorkflowId = '${waiting}'`);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('link', { name: waiting }).waitFor({ timeout: 20_000 });
    await page.getByRole('link', { name: asking.workflowId }).waitFor({ state: 'detached', timeout: 20_000 });
    expect(await page.getByRole('link', { name: asking.workflowId }).count()).toBe(0);
    expect(await page.locator('tbody tr').count()).toBe(1);
    await env.client.workflow.getHandle(waiting).terminate('filtered, no longer needed');

    // Cost comes from visibility (`AgentCostUsd`); the least-cost filter leaves out a run without one.
    env.model.script(PRICED_MODEL, [{ content: 'Priced answer.' }]);
    const priced = await env.start({ model: PRICED_MODEL, tools: [], message: 'Answer at a price.' });
    const cost = ((await priced.result()) as AgentResult).usage.costUsd ?? 0;
    expect(cost).toBeGreaterThan(0);
    await page.getByLabel('Search attributes').fill(`WorkflowId IN ('${waiting}', '${priced.workflowId}')`);
    await page.getByRole('button', { name: 'Filter' }).click();
    const pricedRow = page.locator('tbody tr', { has: page.getByRole('link', { name: priced.workflowId }) });
    await pricedRow.getByText(`$${cost.toFixed(4)}`).waitFor({ timeout: 20_000 });
    expect(await page.locator('tbody tr').count()).toBe(2);
    await photograph(page, 'runs-cost');
    await page.getByLabel('Cost at least ($)').fill(String(cost / 2));
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1, undefined, {
      timeout: 20_000,
    });
    await page.getByRole('link', { name: priced.workflowId }).waitFor();

    await page.goto(`${api.url}/console/#/runs/${encodeURIComponent(asking.workflowId)}`);
    const answerBox = page.getByLabel(/^Answer to everything \(JSON fields\): MCP server "everything" asks/);
    await answerBox.waitFor({ timeout: 20_000 });
    await answerBox.fill('{ "name": "Ada Lovelace" }');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('The run ended: completed.').waitFor({ timeout: 30_000 });
    await page.getByText('Thanks, Ada.').waitFor();
    const result = (await asking.result()) as AgentResult;
    const toolResult = result.messages.find((message) => message.role === 'tool');
    expect(String(toolResult?.content)).toMatch(/- Name: Ada Lovelace/);
    const { events } = await asking.query(eventsQuery, {});
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'mcp-elicitation-end', action: 'accept', by: { name: 'alice', via: 'api' } }),
    );
    await context.close();
  }, 120_000);

  test('a nested agent’s conversation is folded under the call that started it, and opens on request', async () => {
    const { context, page } = await signedIn(admin.token);
    const model = env.scenario([
      { toolCalls: [{ name: 'researcher', arguments: { task: 'What is 6 * 7?' } }] },
      { toolCalls: [{ name: 'calculator', arguments: { expression: '6 * 7' } }] }, // the child
      { content: 'The child worked out 42.' }, // the child's answer
      { content: 'The researcher says 42.' }, // the parent again
    ]);
    const parent = await env.start({ model, tools: ['researcher'], message: 'Ask the researcher.' });
    await parent.result();
    await page.goto(`${api.url}/console/#/runs/${encodeURIComponent(parent.workflowId)}`);
    await page.getByText('The run ended: completed.').waitFor({ timeout: 20_000 });
    const call = page.locator('details.tool', { has: page.locator('summary code', { hasText: 'researcher' }) });
    await call.locator('summary').first().click();
    const folded = call.locator('details.nested');
    await folded.waitFor();
    // Folded: the child's conversation is not read until asked for.
    expect(await folded.evaluate((element) => (element as HTMLDetailsElement).open)).toBe(false);
    expect(await page.getByRole('region', { name: /^Conversation of researcher/ }).count()).toBe(0);
    await folded.locator(':scope > summary').click();
    const child = page.getByRole('region', { name: `Conversation of researcher (${parent.workflowId}/call-1-1)` });
    await child.getByText('The run ended: completed.').waitFor({ timeout: 20_000 });
    await child.getByText('The child worked out 42.').waitFor();
    await child.locator('summary code', { hasText: 'calculator' }).waitFor();
    await photograph(page, 'run-nested');
    await folded.locator(':scope > summary').click();
    expect(await child.count()).toBe(0);
    await context.close();
  }, 120_000);
});
