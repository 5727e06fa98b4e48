import type { ResultProcessingConfig } from '../../shared/loop-guard-schemas';

/**
 * Tool-result processing as a length limit: a result longer than
 * its tool's limit is cut before it enters the conversation, with a marker
 * line so the model knows it did not see everything. Lengths are JavaScript
 * string lengths (UTF-16 code units).
 */

/** What {@link processToolResult} did to one result. */
export interface ProcessedToolResult {
  /** The content for the conversation: unchanged, or cut with the marker line appended. */
  content: string;
  /** Present when the content was cut. `keptChars` does not count the marker. */
  truncated?: { originalChars: number; keptChars: number };
}

/** The limit that applies to `toolName`: its own in `perTool`, else `maxResultChars`, else none. */
export function resultLimitFor(toolName: string, config: ResultProcessingConfig): number | undefined {
  const perTool = config.perTool;
  // Own keys only: a tool named "constructor" must not find Object.prototype's.
  if (perTool !== undefined && Object.hasOwn(perTool, toolName)) return perTool[toolName];
  return config.maxResultChars;
}

/**
 * Cuts `content` to the limit that applies to `toolName` and appends
 * `\n[truncated: kept K of N characters]`; content at or under the limit,
 * or with no limit, is returned unchanged. A cut that would split a
 * surrogate pair keeps one character less, so the text stays well-formed.
 */
export function processToolResult(
  toolName: string,
  content: string,
  config: ResultProcessingConfig,
): ProcessedToolResult {
  const limit = resultLimitFor(toolName, config);
  if (limit === undefined || content.length <= limit) return { content };
  const kept = cutAt(content, limit);
  return {
    content: `${kept}\n${truncationMarker(kept.length, content.length)}`,
    truncated: { originalChars: content.length, keptChars: kept.length },
  };
}

/** The marker line appended to a cut result. */
export function truncationMarker(keptChars: number, originalChars: number): string {
  return `[truncated: kept ${keptChars} of ${originalChars} characters]`;
}

/** `text` in at most `maxChars` UTF-16 units, one less when the cut would split a surrogate pair. */
export function cutAt(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const end = maxChars > 0 && isHighSurrogate(text.charCodeAt(maxChars - 1)) ? maxChars - 1 : maxChars;
  return text.slice(0, end);
}

/** Whether `code` is the first half of a surrogate pair. */
export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
