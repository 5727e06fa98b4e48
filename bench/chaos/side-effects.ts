import { readFileSync } from 'node:fs';
import type { SideEffectRecord } from './chaos-tool';

/** What the side-effect log says about a set of runs. */
export interface SideEffectSummary {
  /** Lines in the log for these runs: every execution of a side effect. */
  executions: number;
  /** Distinct side effects (one per tool call of a run). */
  distinct: number;
  /** Side effects executed more than once, with how often. */
  repeated: { effect: string; workflowId: string; times: number; keys: string[] }[];
  /** The repeated side effects whose executions did not all carry one idempotency key. */
  keyMismatches: number;
}

/** Reads the chaos tool's side-effect log (JSON lines); a torn last line, from a kill mid-write, is skipped. */
export function readSideEffects(file: string): SideEffectRecord[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line) => {
    if (line.trim() === '') return [];
    try {
      return [JSON.parse(line) as SideEffectRecord];
    } catch {
      return [];
    }
  });
}

/**
 * Groups the executions of the given runs, and of the nested agents under
 * them (workflow ids `<run>/<call id>`, at any depth), by the side effect they
 * performed (the workflow and the tool's arguments, not the key), so a repeat
 * is found even if it came with a different idempotency key, which is what a
 * downstream API relying on the key could not deduplicate.
 */
export function summarizeSideEffects(
  records: readonly SideEffectRecord[],
  workflowIds: ReadonlySet<string>,
): SideEffectSummary {
  const groups = new Map<string, SideEffectRecord[]>();
  for (const record of records) {
    if (!workflowIds.has(rootWorkflowId(record.workflowId))) continue;
    const group = `${record.workflowId} ${record.effect}`;
    groups.set(group, [...(groups.get(group) ?? []), record]);
  }
  const repeated = [...groups.values()]
    .filter((group) => group.length > 1)
    .map((group) => ({
      effect: group[0]?.effect ?? '',
      workflowId: group[0]?.workflowId ?? '',
      times: group.length,
      keys: [...new Set(group.map((record) => record.key))],
    }));
  return {
    executions: [...groups.values()].reduce((sum, group) => sum + group.length, 0),
    distinct: groups.size,
    repeated,
    keyMismatches: repeated.filter((entry) => entry.keys.length > 1).length,
  };
}

/** The workflow id of the run at the top of a tree of nested agents: a child's id is its parent's, `/`, a call id. */
function rootWorkflowId(workflowId: string): string {
  return workflowId.split('/')[0] ?? workflowId;
}
