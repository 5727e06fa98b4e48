import { defineTool } from 'agent-runner/worker';
import { z } from 'zod';

// A tool the agent may call: a name, a description for the model, a zod schema for its arguments.
export const lookupOrder = defineTool({
  name: 'lookup_order',
  description: 'Find an order by its number.',
  parameters: z.object({ orderNumber: z.string() }),
  execute: async ({ orderNumber }) => ({ orderNumber, status: 'shipped' }),
});
