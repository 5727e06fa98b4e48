import ms, { type StringValue } from 'ms';
import { z } from 'zod';
import { builtOnce } from './built-once';
import { INPUT_BOUNDS } from './defaults/input-bounds';

/** A Temporal duration: milliseconds, or text such as "30s", "5 minutes", "1h". */
export const durationSchema = builtOnce('duration.duration', () =>
  z.union([
    z.number().int().positive(),
    z
      .string()
      .max(INPUT_BOUNDS.durationChars)
      .refine((text) => {
        try {
          return msToNumber(text) > 0;
        } catch {
          return false;
        }
      }, 'expected a duration such as "30s", "5 minutes" or "1h"'),
  ]),
);

/** A duration in milliseconds as seconds for a message: `1.8 s`, `300 s`. */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * A duration in milliseconds: a number as it is, text through `ms` (the library Temporal's own `msToNumber` uses, at the
 * version it pins), so a duration means the same here as in Temporal's options. Throws on text `ms` cannot read.
 */
export function msToNumber(duration: number | string): number {
  if (typeof duration === 'number') return duration;
  const millis = ms(duration as StringValue);
  if (millis == null || Number.isNaN(millis)) throw new TypeError(`Invalid duration string: '${duration}'`);
  return millis;
}
