import type { ToolDefinition } from '../define-tool';
import { calculatorTool } from './calculator';
import { finishTool, taskCompletionTool } from './completion-tools';
import { createFileTools } from './file-tools';

export { calculatorTool } from './calculator';
export { finishTool, taskCompletionTool } from './completion-tools';
export { createFileTools } from './file-tools';

/** Every built-in tool; the file tools are confined to `workspace`. */
export function createBuiltinTools(options: { workspace: string }): ToolDefinition[] {
  return [finishTool, taskCompletionTool, calculatorTool, ...createFileTools(options.workspace)];
}
