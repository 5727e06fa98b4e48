/**
 * Temporal's size limits, and the budgets the runner keeps under them. Past
 * these limits the server does not fail a call: it terminates the workflow
 * ("ScheduleActivityTaskCommandAttributes.Input exceeds size limit"), so a
 * run or a conversation would be lost with a message about Temporal, not
 * about the run. The runner stops first, with its own failure and a reason.
 *
 * The limits are the server's defaults (`limit.blobSize.error`,
 * `limit.historySize.error`, `limit.historyCount.error`), which Temporal
 * Cloud also uses. Pure values and functions: imported by workflow code.
 */

/** The largest payload Temporal accepts: a model call's input, a tool's output, a run's result. */
export const TEMPORAL_PAYLOAD_LIMIT_BYTES = 2 * 1024 * 1024;

/**
 * What one payload the runner builds may weigh (a result, a continue-as-new
 * input): the limit, less room for the payload's own metadata.
 */
export const PAYLOAD_BUDGET_BYTES = TEMPORAL_PAYLOAD_LIMIT_BYTES - 16 * 1024;

/** The largest event history Temporal keeps before it terminates the workflow. */
export const TEMPORAL_HISTORY_LIMIT_BYTES = 50 * 1024 * 1024;

/** The most events Temporal keeps in one workflow's history before it terminates it. */
export const TEMPORAL_HISTORY_EVENT_LIMIT = 50 * 1024;

/**
 * What a run's conversation may weigh before a model call: its result carries
 * the conversation and what the run added (twice: as messages and in seed
 * 000's format), and the rest of the limit is room for one more answer and
 * its tool results.
 */
export const CONTEXT_BUDGET_BYTES = 1.5 * 1024 * 1024;

/** A tool's output is cut to this in the activity, with a note saying so, so one result cannot fill the conversation. */
export const TOOL_OUTPUT_LIMIT_BYTES = 256 * 1024;

/** A run stops before a model call once its history passes this, leaving room for the call and the run's ending. */
export const HISTORY_BUDGET_BYTES = 40 * 1024 * 1024;

/** A run stops before a model call once its history has this many events. */
export const HISTORY_EVENT_BUDGET = 40 * 1024;

/** The length of `text` in UTF-8, as Temporal counts a JSON payload, without encoding it. */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; ) {
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
