import { compareOutcomes, describeOutcome, type RunOutcome } from './run-comparison';
import type { SideEffectSummary } from './side-effects';

/** What one phase of the chaos harness produced. */
export interface PhaseResult {
  title: string;
  /** Run labels, each with its crash-free reference and the outcome under chaos. */
  runs: { label: string; workflowId: string; reference: RunOutcome; observed: RunOutcome }[];
  sideEffects: SideEffectSummary;
  /** Phase-specific lines (kills, restarts). */
  notes: string[];
  /** Problems the phase found beyond the runs' outcomes (a path it was meant to test and did not). */
  problems?: string[];
  elapsedMs: number;
}

/** The report's lines for one phase, and the problems that make the harness fail. */
function reportPhase(phase: PhaseResult): { lines: string[]; problems: string[] } {
  const compared = phase.runs.map((run) => ({ ...run, comparison: compareOutcomes(run.reference, run.observed) }));
  const identical = compared.filter((run) => run.comparison.identical);
  const stuck = compared.filter((run) => run.observed.status === 'stuck');
  const progressing = stuck.filter((run) => run.observed.status === 'stuck' && run.observed.diagnosis?.progressing);
  const failed = compared.filter((run) => run.observed.status === 'failed');
  const differing = compared.filter((run) => !run.comparison.identical && run.observed.status === 'completed');
  const onlyCacheRefs = differing.filter((run) => !run.comparison.identical && run.comparison.onlyCacheRefs === true);
  const { sideEffects } = phase;
  const mostRepeats = Math.max(0, ...sideEffects.repeated.map((entry) => entry.times));
  const lines = [
    phase.title,
    `  runs started:             ${phase.runs.length}`,
    `  identical to crash-free:  ${identical.length}/${phase.runs.length}`,
    `  differing:                ${differing.length}${onlyCacheRefs.length > 0 ? ` (${onlyCacheRefs.length} only in the numbering of cached results)` : ''}`,
    `  stuck:                    ${stuck.length}${progressing.length > 0 ? ` (${progressing.length} still progressing at the deadline)` : ''}`,
    `  failed:                   ${failed.length}`,
    `  side effects:             ${sideEffects.executions} executions of ${sideEffects.distinct}; ` +
      `${sideEffects.repeated.length} executed more than once${mostRepeats > 1 ? ` (up to ${mostRepeats} times)` : ''}`,
    `  repeats with one key:     ${sideEffects.repeated.length - sideEffects.keyMismatches}/${sideEffects.repeated.length}` +
      (sideEffects.keyMismatches > 0 ? ' (a repeat with another key could not be deduplicated downstream)' : ''),
    ...phase.notes.map((note) => `  ${note}`),
    `  elapsed:                  ${(phase.elapsedMs / 1000).toFixed(0)} s`,
  ];
  const problemRuns = compared.filter((run) => !run.comparison.identical);
  for (const run of problemRuns.slice(0, 10)) {
    lines.push(`  ${run.workflowId}: ${run.comparison.identical ? '' : run.comparison.difference}`);
  }
  if (problemRuns.length > 10) lines.push(`  ... and ${problemRuns.length - 10} more`);
  const problems = [
    ...(differing.length > 0
      ? [
          `${differing.length} run(s) differ from crash-free` +
            (onlyCacheRefs.length > 0 ? ` (${onlyCacheRefs.length} only in which cache-N a cached result got)` : ''),
        ]
      : []),
    ...(stuck.length > progressing.length ? [`${stuck.length - progressing.length} run(s) stuck`] : []),
    ...(progressing.length > 0
      ? [`${progressing.length} run(s) unfinished at the deadline but still progressing (a longer --deadline may pass)`]
      : []),
    ...(failed.length > 0 ? [`${failed.length} run(s) failed`] : []),
    ...(sideEffects.keyMismatches > 0
      ? [`${sideEffects.keyMismatches} repeated side effect(s) with different keys`]
      : []),
    ...(phase.problems ?? []),
    ...compared
      .filter((run) => run.reference.status !== 'completed')
      .slice(0, 1)
      .map((run) => `crash-free reference ${describeOutcome(run.reference)}`),
  ].map((problem) => `${phase.title.split(':')[0]}: ${problem}`);
  return { lines, problems };
}

/**
 * Prints every phase's report and the verdict line, both forms of the chaos run alike; `problems` holds what was
 * found before the phases (it is added to). Returns the process's exit code.
 */
export function printPhaseReports(phases: readonly PhaseResult[], problems: string[], elapsed: () => string): number {
  for (const phase of phases) {
    const report = reportPhase(phase);
    console.log('');
    for (const line of report.lines) console.log(line);
    problems.push(...report.problems);
  }
  console.log('');
  console.log(problems.length === 0 ? `PASS in ${elapsed()}` : `FAIL in ${elapsed()}: ${problems.join('; ')}`);
  return problems.length === 0 ? 0 : 1;
}
