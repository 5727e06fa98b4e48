/**
 * Measuring sizes as Temporal counts them, for the size guards. Temporal's
 * limits and the budgets the runner keeps under them are in
 * `defaults/sizes.ts`. Pure functions: imported by workflow code.
 */

/** A UTF-16 code unit past ASCII: text without one is one byte a character. */
const BEYOND_ASCII = /[\u0080-\uffff]/;

/** The length of `text` in UTF-8, as Temporal counts a JSON payload, without encoding it. */
export function utf8Bytes(text: string): number {
  // Most payloads are ASCII (the JSON of English text): the regular expression's native scan is several times faster
  // than counting, and the size guards measure the whole conversation before every model call.
  if (!BEYOND_ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let index = 0; index < text.length;) {
    const size = charAt(text, index);
    bytes += size.bytes;
    index += size.units;
  }
  return bytes;
}

/**
 * The character at `index`: its UTF-8 bytes and its UTF-16 code units. A
 * surrogate pair is one code point of four bytes; a lone surrogate is
 * encoded as U+FFFD, three bytes, as `Buffer` and `TextEncoder` do.
 */
function charAt(text: string, index: number): { bytes: number; units: number } {
  const code = text.charCodeAt(index);
  if (code < 0x80) return { bytes: 1, units: 1 };
  if (code < 0x800) return { bytes: 2, units: 1 };
  if (code >= 0xd800 && code <= 0xdbff) {
    const next = text.charCodeAt(index + 1);
    if (next >= 0xdc00 && next <= 0xdfff) return { bytes: 4, units: 2 };
  }
  return { bytes: 3, units: 1 };
}

/** The size of `value` as a JSON payload. */
export function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value) ?? 'null');
}

/**
 * `text` cut to at most `maxBytes` of UTF-8 on a character boundary, or
 * `text` itself when it fits.
 */
export function cutToBytes(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 3 || utf8Bytes(text) <= maxBytes) return text;
  let bytes = 0;
  let index = 0;
  while (index < text.length) {
    const size = charAt(text, index);
    if (bytes + size.bytes > maxBytes) break;
    bytes += size.bytes;
    index += size.units;
  }
  return text.slice(0, index);
}

/** `1.6 MiB`, `300 KiB`, `12 bytes`: a size as people read it. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}
