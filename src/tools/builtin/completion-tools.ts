import { z } from 'zod';
import { DEFAULT_TERMINATE_MESSAGE } from '../../shared';
import { defineTool } from '../define-tool';
import { TerminateResponse } from '../terminate-response';

/** Seed 001's `finish`: ends the run; the note (or `Task completed.`) is the response. */
export const finishTool = defineTool({
  name: 'finish',
  description: `Call when the task is done and nothing else is needed. The optional note is returned to the user (default: "${DEFAULT_TERMINATE_MESSAGE}").`,
  parameters: z.object({ note: z.string().optional().describe('A short note about how the task was completed') }),
  execute: ({ note }) => new TerminateResponse(note),
});

/** Seed 004's `task_completion`: a loop-breaking tool whose `result` is the run's response. */
export const taskCompletionTool = defineTool({
  name: 'task_completion',
  description: 'Call when the task is complete, with the final result for the user. This ends the run.',
  parameters: z.object({ result: z.string().min(1).describe('The final result of the task') }),
  terminating: true,
  execute: ({ result }) => result,
});
