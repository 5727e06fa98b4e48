import type { z } from 'zod';

/**
 * Reading what crosses a durable boundary in any version this code knows:
 * each version has a reader that parses it and brings it up to the current
 * one, and what comes names its version in `schemaVersion` (absent: version
 * 1, written before versions existed). Used by the hand-over and the
 * conversation input, each with its own schemas.
 */

/** One version's reader: the input parsed as that version, as the current one; or the schema's error. */
export type VersionReader<Current> = (raw: unknown) => { success: true; data: Current } | { success: false; error: z.ZodError };

/** The reader of a previous version: its schema, then its upgrade to the current version. */
export function upgradingReader<Previous, Current>(schema: z.ZodType<Previous>, upgrade: (previous: Previous) => Current): VersionReader<Current> {
  return (raw) => {
    const parsed = schema.safeParse(raw);
    return parsed.success ? { success: true, data: upgrade(parsed.data) } : { success: false, error: parsed.error };
  };
}

/**
 * The reader for the version `raw` names, or the problem line when no reader
 * knows it: `field` names the version's field in the problem, `what` the
 * kind of thing (`the hand-over versions this worker reads`).
 */
export function readerFor<Current>(
  raw: unknown,
  readers: Readonly<Record<number, VersionReader<Current>>>,
  field: string,
  what: string,
): { read: VersionReader<Current> } | { problem: string } {
  const version = typeof raw === 'object' && raw !== null && 'schemaVersion' in raw ? raw.schemaVersion : 1;
  const read = typeof version === 'number' ? readers[version] : undefined;
  if (read !== undefined) return { read };
  return { problem: `${field}: expected one of ${Object.keys(readers).join(', ')} (${what}), got ${String(JSON.stringify(version)).slice(0, 64)}` };
}
