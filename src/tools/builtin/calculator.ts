import { z } from 'zod';
import { defineTool } from '../define-tool';
import { evaluateArithmetic } from './arithmetic';

/** Safe arithmetic for the model: a parser, never `eval`. */
export const calculatorTool = defineTool({
  name: 'calculator',
  description:
    'Evaluate an arithmetic expression: numbers, + - * / % ^, parentheses, and sqrt, abs, round, floor, ceil, min, max, pi, e.',
  parameters: z.object({ expression: z.string().min(1).describe('For example "(2 + 3) * 4 ^ 2"') }),
  // Pure and quick: a local activity (no task queue round trip), run again harmlessly if its workflow task fails.
  local: true,
  execute: ({ expression }) => String(evaluateArithmetic(expression)),
});
