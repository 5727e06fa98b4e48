import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { defineTool, type ToolDefinition } from '../../src/tools/define-tool';
import { createToolRegistry } from '../../src/tools/tool-registry';
import { isZod3Schema } from '../../src/tools/zod-version';

/** A tool whose schema comes from zod 3 (zod 4's package ships it as `zod/v3`), as a user still on zod 3 writes it. */
const zod3Tool = {
  name: 'lookup_order',
  description: 'Find an order by its number.',
  parameters: z3.object({ orderNumber: z3.string() }),
  execute: () => 'found',
} as unknown as ToolDefinition;

describe('a zod 3 schema given for a tool', () => {
  test('is told apart from a zod 4 one', () => {
    expect(isZod3Schema(z3.object({ orderNumber: z3.string() }))).toBe(true);
    expect(isZod3Schema(z.object({ orderNumber: z.string() }))).toBe(false);
    expect(isZod3Schema({ orderNumber: 'string' })).toBe(false);
  });

  test('defineTool refuses it, saying zod 4 is required', () => {
    expect(() => defineTool(zod3Tool)).toThrow(/lookup_order.*zod 3 schema; agent-runner requires zod 4/);
  });

  test('a registry refuses a tool written as a plain object with one, instead of failing inside toJSONSchema', () => {
    expect(() => createToolRegistry([zod3Tool])).toThrow(/zod 3 schema; agent-runner requires zod 4/);
    expect(() => createToolRegistry([zod3Tool])).not.toThrow(/reading 'def'/);
  });

  test('something that is no schema at all is refused by name', () => {
    expect(() =>
      defineTool({ ...zod3Tool, parameters: { orderNumber: 'string' } } as unknown as ToolDefinition),
    ).toThrow(/lookup_order.*must be a zod 4 schema/);
  });
});
