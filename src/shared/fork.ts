import { z } from 'zod';
import { builtOnce } from './built-once';
import { INPUT_BOUNDS } from './defaults/input-bounds';
import { usageSchema } from './messages';

/**
 * Where a fork came from (`forkRun`): the source run's id, the iteration the fork took its conversation at, and what
 * the source had spent to reach it. Set by the runner on a fork's input; a run carries it to its first event and
 * its result, and a search attribute (`AgentForkedFrom`) names the source so the forks of a run can be listed.
 */
export const forkedFromSchema = builtOnce('fork.forkedFrom', () =>
  z.strictObject({
    /** The source run's id (its workflow id). */
    runId: z.string().min(1).max(INPUT_BOUNDS.runIdChars),
    /** The fork's conversation is the source's as it stood when this iteration began; the fork's first iteration has this number. */
    iteration: z.number().int().positive(),
    /** Tokens and cost the source (and the runs it was forked from) spent on the conversation the fork took over: not the fork's. */
    inherited: usageSchema.optional(),
  }),
);
export type ForkedFrom = z.infer<typeof forkedFromSchema>;
