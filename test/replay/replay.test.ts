import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import { installQuietRuntime } from '../helpers/quiet-runtime';

/**
 * Every committed history must replay against the current workflow code. A
 * failure here means a change would break runs already in flight: keep the
 * old behaviour behind `wf.patched(...)`, or record a new history (npm run
 * record-history) and say in the commit why the old one changed.
 */
const HISTORY = path.join(__dirname, 'histories', 'agent-loop.json');

beforeAll(installQuietRuntime);

async function loadHistory() {
  return historyFromJSON(JSON.parse(await readFile(HISTORY, 'utf8')));
}

const HISTORY_FILES = readdirSync(path.join(__dirname, 'histories')).filter((file) => file.endsWith('.json'));

test('there are committed histories to replay', () => {
  expect(HISTORY_FILES).toEqual([
    'agent-loop.json',
    'ask-question.json',
    'attributed-decisions.json',
    'call-identity.json',
    'compaction.json',
    'continue-as-new-start.json',
    'continue-as-new.json',
    'control-plane.json',
    'conversation.json',
    'fork.json',
    'linear-history.json',
    'local-tools.json',
    'mcp-elicitation-answer.json',
    'mcp-elicitation.json',
    'model-fallbacks.json',
    'nested-agents-child.json',
    'nested-agents.json',
    'output-schema.json',
    'truncated-answers-before.json',
    'truncated-answers.json',
  ]);
});

/** Histories whose commands carry their workflow's id (a nested agent's id derives from its parent's) replay under it. */
const WORKFLOW_IDS: Record<string, string> = { 'nested-agents.json': 'recorded-nested-agents' };

test.each(HISTORY_FILES)('%s replays against the current workflow code', async (file) => {
  const bundlePath = process.env.AGENT_TEST_WORKFLOW_BUNDLE;
  if (!bundlePath) throw new Error('AGENT_TEST_WORKFLOW_BUNDLE is not set: run the tests with `npm test`.');
  const history = historyFromJSON(JSON.parse(await readFile(path.join(__dirname, 'histories', file), 'utf8')));
  expect(history.events?.length).toBeGreaterThan(20);
  await expect(
    Worker.runReplayHistory({ workflowBundle: { codePath: bundlePath } }, history, WORKFLOW_IDS[file]),
  ).resolves.toBeUndefined();
});

test('an upsert replays whatever attributes it carries, so a run may upsert one more (AgentCostUsd) without a patch', async () => {
  const recorded = JSON.parse(await readFile(HISTORY, 'utf8')) as {
    events: { upsertWorkflowSearchAttributesEventAttributes?: { searchAttributes?: { indexedFields?: object } } }[];
  };
  // The history as a worker without one of today's attributes would have written it.
  const upserts = recorded.events.flatMap((event) => {
    const fields = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
    return fields !== undefined && 'AgentTotalTokens' in fields ? [fields as Record<string, unknown>] : [];
  });
  for (const fields of upserts) delete fields.AgentTotalTokens;
  expect(upserts.length).toBeGreaterThanOrEqual(2);
  const bundlePath = process.env.AGENT_TEST_WORKFLOW_BUNDLE;
  if (!bundlePath) throw new Error('AGENT_TEST_WORKFLOW_BUNDLE is not set: run the tests with `npm test`.');
  await expect(
    Worker.runReplayHistory({ workflowBundle: { codePath: bundlePath } }, historyFromJSON(recorded)),
  ).resolves.toBeUndefined();
});

test('a change to the workflow code fails replay with DeterminismViolationError', async () => {
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./changed-workflow'),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
  });
  const replay = Worker.runReplayHistory({ workflowBundle: bundle }, await loadHistory(), 'recorded-agent-loop');
  await expect(replay).rejects.toThrow(DeterminismViolationError);
});
