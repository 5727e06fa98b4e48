import os from 'node:os';
import { z } from 'zod';
import { createBuiltinTools } from '../../src/tools/builtin';
import { defineTool } from '../../src/tools/define-tool';
import { createToolRegistry } from '../../src/tools/tool-registry';

/** Which tools run as local activities, and how the catalog says so. */
describe('local tools', () => {
  const builtins = createBuiltinTools({ workspace: os.tmpdir() });

  test('the pure built-ins are local; the file tools, which do I/O, are not', () => {
    const local = builtins
      .filter((tool) => tool.local === true)
      .map((tool) => tool.name)
      .sort();
    const regular = builtins
      .filter((tool) => tool.local !== true)
      .map((tool) => tool.name)
      .sort();

    expect(local).toEqual(['ask_question', 'calculator', 'converse', 'finish', 'task_completion']);
    expect(regular).toEqual(['list_files', 'read_file', 'write_file']);
  });

  test('the catalog marks local tools `local: true` and says nothing of the others', () => {
    const catalog = createToolRegistry(builtins).describe();

    expect(catalog.find((tool) => tool.name === 'calculator')).toMatchObject({ local: true });
    expect(catalog.find((tool) => tool.name === 'write_file')).not.toHaveProperty('local');
  });

  test('a tool is regular unless it says `local: true`', () => {
    const base = { description: 'Echoes.', parameters: z.object({}), execute: () => 'ok' };
    const catalog = createToolRegistry([
      defineTool({ name: 'plain', ...base }),
      defineTool({ name: 'said_no', local: false, ...base }),
      defineTool({ name: 'said_yes', local: true, ...base }),
    ]).describe();

    expect(catalog.map((tool) => [tool.name, tool.local ?? false])).toEqual([
      ['plain', false],
      ['said_no', false],
      ['said_yes', true],
    ]);
  });

  test('a local tool must be short: a timeout over 10 s is refused at definition, naming the limit', () => {
    const base = { description: 'Slow.', parameters: z.object({}), execute: () => 'ok', local: true };

    expect(() => defineTool({ name: 'too_slow', timeout: '11 seconds', ...base })).toThrow(
      'Tool "too_slow": a local tool must be short; its timeout is at most 10 seconds (drop `local` for a longer one).',
    );
    expect(defineTool({ name: 'just_fits', timeout: '10 seconds', ...base }).timeout).toBe('10 seconds');
    expect(defineTool({ name: 'slow_but_regular', timeout: '1 hour', ...base, local: false }).timeout).toBe('1 hour');
  });
});
