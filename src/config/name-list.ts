import { z } from 'zod';

/** A comma-separated list's entries, trimmed, blank ones dropped. */
export function splitNames(text: string): string[] {
  return text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/** A variable holding a comma-separated list of names, read as its entries ({@link splitNames}). */
export const commaSeparatedNames = z.string().transform(splitNames);
