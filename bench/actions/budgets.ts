/**
 * The budgets for what a run costs in Temporal actions: unwatched, at most the bare loop's actions plus
 * {@link UNWATCHED_ALLOWANCE}, whatever the model's latency; watched (a CLI follower, SSE clients through one API
 * process), at most {@link WATCHED_PER_ITERATION} more per iteration than the same run unwatched.
 */

/** Actions a run may cost above the bare Temporal loop doing the same work. */
const UNWATCHED_ALLOWANCE = 5;

/** Actions per iteration that following a run may add, however many clients follow it through one API process. */
const WATCHED_PER_ITERATION = 1.5;

/** One latency's measured runs, in actions. */
export interface LatencyCounts {
  latencyMs: number;
  iterations: number;
  bare: number;
  unwatched: number;
  /** Each watched form (`cli`, `sse-1`, `sse-10`) and its run's actions. */
  watched: Record<string, number>;
}

/** One budget checked. */
export interface BudgetCheck {
  latencyMs: number;
  what: string;
  measured: number;
  allowed: number;
  pass: boolean;
}

/** Every budget of `counts`. */
export function checkBudgets(counts: readonly LatencyCounts[]): BudgetCheck[] {
  return counts.flatMap(({ latencyMs, iterations, bare, unwatched, watched }) => [
    {
      latencyMs,
      what: 'unwatched run, actions over the bare loop',
      measured: unwatched - bare,
      allowed: UNWATCHED_ALLOWANCE,
      pass: unwatched - bare <= UNWATCHED_ALLOWANCE,
    },
    ...Object.entries(watched).map(([form, actions]) => {
      const perIteration = (actions - unwatched) / iterations;
      return {
        latencyMs,
        what: `${form}, actions per iteration over unwatched`,
        measured: Number(perIteration.toFixed(2)),
        allowed: WATCHED_PER_ITERATION,
        pass: perIteration <= WATCHED_PER_ITERATION,
      };
    }),
  ]);
}
