import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CONFIGURATION_GROUPS, environmentVariables } from '../../src/config/variables';
import {
  REFERENCE_FILE,
  documentedVariables,
  generatedSection,
  renderConfigurationTables,
} from '../../scripts/configuration-reference';

const reference = readFileSync(REFERENCE_FILE, 'utf8');

describe('docs/reference/configuration.md', () => {
  test('has a row for every variable the code reads, and none for a variable it does not read', () => {
    const read = environmentVariables().map((variable) => variable.name);
    const documented = documentedVariables(reference);

    expect({
      withoutRow: read.filter((name) => !documented.includes(name)),
      notRead: documented.filter((name) => !read.includes(name)),
    }).toEqual({
      withoutRow: [],
      notRead: [],
    });
  });

  test('its tables are the ones the code renders (run `npm run docs:configuration` after changing a variable)', () => {
    expect(generatedSection(reference)).toBe(renderConfigurationTables());
  });
});

describe('environmentVariables', () => {
  test('lists a variable added to a schema, with its default and meaning', () => {
    const added = z.object({ AGENT_EXAMPLE: z.coerce.number().default(5).describe('An example.') });

    expect(environmentVariables([...CONFIGURATION_GROUPS, { schema: added, processes: ['worker'] }]).at(-1)).toEqual({
      name: 'AGENT_EXAMPLE',
      processes: ['worker'],
      default: '5',
      meaning: 'An example.',
    });
  });

  test('a row for a variable that is not read fails the check', () => {
    const withExtraRow = reference.replace(
      '<!-- end:configuration-table -->',
      '| `AGENT_NOT_READ` | worker | — | Nothing. |\n<!-- end:configuration-table -->',
    );
    const read = environmentVariables().map((variable) => variable.name);

    expect(documentedVariables(withExtraRow).filter((name) => !read.includes(name))).toEqual(['AGENT_NOT_READ']);
  });

  test('refuses a variable without a description', () => {
    const undescribed = z.object({ AGENT_UNDESCRIBED: z.string().optional() });

    expect(() => environmentVariables([{ schema: undescribed, processes: ['worker'] }])).toThrow(
      'AGENT_UNDESCRIBED has no description',
    );
  });

  test('merges a variable several processes read differently', () => {
    const address = environmentVariables().find((variable) => variable.name === 'TEMPORAL_ADDRESS');

    expect(address?.processes).toEqual(['worker', 'api', 'cli', 'start', 'demo', 'server']);
    expect(address?.default).toBe('localhost:7233 (worker, api, cli); none (start, demo, server)');
  });
});
