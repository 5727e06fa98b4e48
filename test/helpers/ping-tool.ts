import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool';

/** A plain tool for tests: `ping({ host })` answers `pong <host>`. */
export const pingTool = defineTool({
  name: 'ping',
  description: 'Ping a host.',
  parameters: z.object({ host: z.string() }),
  execute: ({ host }) => `pong ${host}`,
});
