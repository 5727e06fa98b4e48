import type { ExternalToolDescriptions } from '../shared/activity-types';
import type { ToolDefinition } from './define-tool';

/**
 * Tools that live outside the worker (an MCP server's, named `<server>__<tool>`): the registry asks the source
 * for a name it does not define, so tools/ never depends on the protocol that serves them.
 */
export interface ExternalToolSource {
  /** Whether `name` is one of the source's tools, listed or not. */
  owns(name: string): boolean;
  /** The definition a call of `name` runs; undefined when the name is not the source's. */
  definition(name: string): ToolDefinition | undefined;
  /** The tools `names` stands for, listed from their servers on first use. */
  describe(names: readonly string[]): Promise<ExternalToolDescriptions>;
}
