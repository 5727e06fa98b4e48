import type { z } from 'zod';

/**
 * Reading what crosses a durable boundary: each `schemaVersion` has a reader that parses it and brings it up to the
 * current version.
 */

/** One version's reader: the input parsed as that version, as the current one; or the schema's error. */
export type VersionReader<Current> = (
  raw: unknown,
) => { success: true; data: Current } | { success: false; error: z.ZodError };

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
  const version = typeof raw === 'object' && raw !== null && 'schemaVersion' in raw ? raw.schemaVersion : undefined;
  const read = typeof version === 'number' && Object.hasOwn(readers, version) ? readers[version] : undefined;
  if (read !== undefined) return { read };
  const got = version === undefined ? 'none' : String(JSON.stringify(version)).slice(0, 64);
  return { problem: `${field}: expected one of ${Object.keys(readers).join(', ')} (${what}), got ${got}` };
}
