import { z } from 'zod';
import { DEFAULT_TERMINATE_MESSAGE } from '../../shared/defaults/run-input';
import { defineTool } from '../define-tool';
import { TerminateResponse } from '../terminate-response';
import { WaitForInput } from '../wait-for-input';

// Each of these only turns its arguments into an answer: pure, so each runs as a local activity (`local: true`).

/** `finish`, the built-in terminating tool: ends the run; the note (or `Task completed.`) is the response. */
export const finishTool = defineTool({
  name: 'finish',
  description: `Call when the task is done and nothing else is needed. The optional note is returned to the user (default: "${DEFAULT_TERMINATE_MESSAGE}").`,
  parameters: z.object({ note: z.string().optional().describe('A short note about how the task was completed') }),
  local: true,
  execute: ({ note }) => new TerminateResponse(note),
});

/** `task_completion`: a loop-breaking tool whose `result` is the run's response. */
export const taskCompletionTool = defineTool({
  name: 'task_completion',
  description: 'Call when the task is complete, with the final result for the user. This ends the run.',
  parameters: z.object({ result: z.string().min(1).describe('The final result of the task') }),
  terminating: true,
  local: true,
  execute: ({ result }) => result,
});

/** `converse`: a conversational reply that ends the run, the reply its response. */
export const converseTool = defineTool({
  name: 'converse',
  description: 'Reply to the user conversationally when no task needs doing. This ends the run.',
  parameters: z.object({ message: z.string().min(1).describe('The reply to the user') }),
  terminating: true,
  local: true,
  execute: ({ message }) => message,
});

/** `ask_question`: pauses the run until the user answers (the `userMessage` signal). */
export const askQuestionTool = defineTool({
  name: 'ask_question',
  description: 'Ask the user a question when you need information to go on. The run waits for the answer.',
  parameters: z.object({ question: z.string().min(1).describe('One clear question') }),
  local: true,
  execute: ({ question }) => new WaitForInput(question),
});
