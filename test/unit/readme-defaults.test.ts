import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as constants from '../../src/shared/constants';

/**
 * The docs' configuration and defaults tables (docs/reference/configuration.md,
 * docs/reference/defaults.md) say what `constants.ts` holds: a default changed
 * in one place and not the other fails here.
 */
const reference = (page: string): string => readFileSync(path.join(__dirname, '..', '..', 'docs', 'reference', page), 'utf8');
const configurationPage = reference('configuration.md');
const defaultsPage = reference('defaults.md');

/** The cells of the configuration table's row whose first cell is exactly `first`. */
function row(first: string): string[] {
  const line = configurationPage.split('\n').find((candidate) => candidate.startsWith(`| ${first} |`));
  if (line === undefined) throw new Error(`docs/reference/configuration.md has no table row for ${first}`);
  return line.split(' | ').map((cell) => cell.replace(/^\| ?| ?\|$/g, '').trim());
}

/** The value at `dotted` (`ACTIVITY_DEFAULTS.modelCallTimeout`) in constants.ts. */
function constantAt(dotted: string): unknown {
  return dotted.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], constants);
}

describe('the defaults table', () => {
  const rows = defaultsPage
    .split('\n')
    .filter((line) => /^\| `[A-Z_]+[\w.]*` \| `/.test(line))
    .map((line) => line.split(' | ').slice(0, 2).map((cell) => cell.replace(/^\| /, '').replace(/^`|`$/g, '')) as [string, string]);

  test('lists the defaults', () => {
    expect(rows.length).toBeGreaterThan(30);
  });

  test.each(rows)('%s is %s', (name, shown) => {
    expect(constantAt(name)).toEqual(JSON.parse(shown));
  });
});

describe('the configuration table', () => {
  test.each([
    ['`TEMPORAL_ADDRESS`', [constants.DEFAULT_TEMPORAL_ADDRESS]],
    ['`TEMPORAL_NAMESPACE`', [constants.DEFAULT_NAMESPACE]],
    ['`AGENT_TASK_QUEUE`', [constants.DEFAULT_TASK_QUEUE, constants.DEMO_TASK_QUEUE]],
    ['`OPENAI_BASE_URL`', [constants.WORKER_DEFAULTS.modelBaseUrl]],
    ['`OPENAI_MODEL`', [constants.WORKER_DEFAULTS.model]],
    ['`AGENT_WORKSPACE`', [constants.WORKER_DEFAULTS.workspace]],
    ['`LOG_LEVEL`', [constants.WORKER_DEFAULTS.logLevel.toLowerCase()]],
    ['`AGENT_API_AUTH`', [constants.API_DEFAULTS.auth]],
    ['`AGENT_API_HOST`, `AGENT_API_PORT`', [constants.API_DEFAULTS.host, String(constants.API_DEFAULTS.port)]],
    ['`AGENT_API_BODY_LIMIT`', [String(constants.API_DEFAULTS.bodyLimitBytes)]],
    ['`AGENT_TOOLS`', [constants.DEFAULT_AGENT_TOOLS.join(',')]],
  ])('%s', (variable, values) => {
    const cells = row(variable);
    for (const value of values) expect(cells.join(' | ')).toContain(`\`${value}\``);
  });
});
