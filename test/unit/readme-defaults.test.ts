import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as activitiesDefaults from '../../src/shared/defaults/activities';
import * as apiDefaults from '../../src/shared/defaults/api';
import * as clientDefaults from '../../src/shared/defaults/client';
import * as contextControlDefaults from '../../src/shared/defaults/context-control';
import * as conversationsDefaults from '../../src/shared/defaults/conversations';
import * as eventLogDefaults from '../../src/shared/defaults/event-log';
import * as inputBoundsDefaults from '../../src/shared/defaults/input-bounds';
import * as localServerDefaults from '../../src/shared/defaults/local-server';
import * as modelStreamDefaults from '../../src/shared/defaults/model-stream';
import * as namesDefaults from '../../src/shared/defaults/names';
import * as runInputDefaults from '../../src/shared/defaults/run-input';
import * as sizesDefaults from '../../src/shared/defaults/sizes';
import * as toolsDefaults from '../../src/shared/defaults/tools';
import * as workerDefaults from '../../src/shared/defaults/worker';

/**
 * The README's configuration and defaults tables say what src/shared/defaults/
 * holds: a default changed in one place and not the other fails here.
 */
const constants = { ...activitiesDefaults, ...apiDefaults, ...clientDefaults, ...contextControlDefaults, ...conversationsDefaults, ...eventLogDefaults, ...inputBoundsDefaults, ...localServerDefaults, ...modelStreamDefaults, ...namesDefaults, ...runInputDefaults, ...sizesDefaults, ...toolsDefaults, ...workerDefaults };
const readme = readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');

/** The cells of the table row whose first cell is exactly `first`. */
function row(first: string): string[] {
  const line = readme.split('\n').find((candidate) => candidate.startsWith(`| ${first} |`));
  if (line === undefined) throw new Error(`README has no table row for ${first}`);
  return line.split(' | ').map((cell) => cell.replace(/^\| ?| ?\|$/g, '').trim());
}

/** The value at `dotted` (`ACTIVITY_DEFAULTS.modelCallTimeout`) in src/shared/defaults/. */
function constantAt(dotted: string): unknown {
  return dotted.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], constants);
}

describe('the defaults table', () => {
  const rows = readme
    .slice(readme.indexOf('### Defaults'), readme.indexOf('### Finding a Temporal CLI'))
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
