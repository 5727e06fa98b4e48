/** How long ago `iso` was, in the largest whole unit. */
export function age(iso: string, now: number = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

/** A value as indented JSON. */
export function json(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'undefined';
}

/** A cost in US dollars, or a dash when the run was not priced. */
export function dollars(cost: number | undefined | null): string {
  return cost === undefined || cost === null ? '—' : `$${cost.toFixed(4)}`;
}

/** The console's address of a run. */
export function runHref(runId: string): string {
  return `#/runs/${encodeURIComponent(runId)}`;
}
