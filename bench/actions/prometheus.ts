/**
 * Temporal's `action` counter as a server's Prometheus endpoint serves it: one sample a line,
 * `action{action_type="...",namespace="...",...} <value>`. The counter is what Temporal Cloud bills (workflow
 * starts, activity starts, heartbeats that reach the server, signals, queries, updates, upserts, timers, markers).
 */

/** Action counts by namespace, then by action type. */
export type ActionCounts = Map<string, Map<string, number>>;

const SAMPLE = /^action\{([^}]*)\}\s+([0-9.eE+-]+)\s*$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

/** Sums the `action` samples of a metrics page by namespace and action type; other metrics are ignored. */
export function actionCounts(page: string): ActionCounts {
  const counts: ActionCounts = new Map();
  for (const line of page.split('\n')) {
    const sample = SAMPLE.exec(line.trim());
    if (sample === null) continue;
    const labels = new Map([...(sample[1] ?? '').matchAll(LABEL)].map((match) => [match[1], match[2]]));
    const namespace = labels.get('namespace');
    const type = labels.get('action_type');
    const value = Number(sample[2]);
    if (namespace === undefined || type === undefined || !Number.isFinite(value)) continue;
    const byType = counts.get(namespace) ?? new Map<string, number>();
    byType.set(type, (byType.get(type) ?? 0) + value);
    counts.set(namespace, byType);
  }
  return counts;
}

/** The total of one namespace's actions. */
export function totalOf(byType: ReadonlyMap<string, number> | undefined): number {
  return [...(byType ?? new Map<string, number>()).values()].reduce((sum, value) => sum + value, 0);
}
