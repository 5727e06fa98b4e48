import type { ToolDefinition } from '../define-tool';
import { calculatorTool } from './calculator';
import { askQuestionTool, converseTool, finishTool, taskCompletionTool } from './completion-tools';
import { createFileTools } from './file-tools';

export { calculatorTool } from './calculator';
export { finishTool } from './completion-tools';

/** Every built-in tool; the file tools are confined to `workspace`. */
export function createBuiltinTools(options: { workspace: string }): ToolDefinition[] {
  return [
    finishTool,
    taskCompletionTool,
    converseTool,
    askQuestionTool,
    calculatorTool,
    ...createFileTools(options.workspace),
  ];
}
