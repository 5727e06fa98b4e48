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
import * as modelSettingsDefaults from '../../src/shared/defaults/model-settings';
import * as modelStreamDefaults from '../../src/shared/defaults/model-stream';
import * as namesDefaults from '../../src/shared/defaults/names';
import * as outputDefaults from '../../src/shared/defaults/output';
import * as runInputDefaults from '../../src/shared/defaults/run-input';
import * as sizesDefaults from '../../src/shared/defaults/sizes';
import * as toolsDefaults from '../../src/shared/defaults/tools';
import * as workerDefaults from '../../src/shared/defaults/worker';

/**
 * The docs' defaults table (docs/reference/defaults.md) says what src/shared/defaults/ holds: a default changed in
 * one place and not the other fails here. (The configuration page is generated from the configuration's schemas and
 * checked by configuration-reference.test.ts.)
 */
const reference = (page: string): string =>
  readFileSync(path.join(__dirname, '..', '..', 'docs', 'reference', page), 'utf8');
const defaultsPage = reference('defaults.md');
const constants = {
  ...activitiesDefaults,
  ...apiDefaults,
  ...clientDefaults,
  ...contextControlDefaults,
  ...conversationsDefaults,
  ...eventLogDefaults,
  ...inputBoundsDefaults,
  ...localServerDefaults,
  ...modelSettingsDefaults,
  ...modelStreamDefaults,
  ...namesDefaults,
  ...outputDefaults,
  ...runInputDefaults,
  ...sizesDefaults,
  ...toolsDefaults,
  ...workerDefaults,
};

/** The value at `dotted` (`ACTIVITY_DEFAULTS.modelCallTimeout`) in src/shared/defaults/. */
function constantAt(dotted: string): unknown {
  return dotted
    .split('.')
    .reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], constants);
}

describe('the defaults table', () => {
  const rows = defaultsPage
    .split('\n')
    .filter((line) => /^\| `[A-Z_]+[\w.]*` \| `/.test(line))
    .map(
      (line) =>
        line
          .split(' | ')
          .slice(0, 2)
          .map((cell) => cell.replace(/^\| /, '').replace(/^`|`$/g, '')) as [string, string],
    );

  test('lists the defaults', () => {
    expect(rows.length).toBeGreaterThan(30);
  });

  test.each(rows)('%s is %s', (name, shown) => {
    expect(constantAt(name)).toEqual(JSON.parse(shown));
  });
});
