import { MESSAGE_PAGES } from '../../shared/defaults/sizes';
import { jsonBytes } from '../../shared/payload-limits';
import { type ChatMessage } from '../../shared/messages';
import { type MessagePage } from '../../shared/transcript';

/**
 * Pages of a conversation, and the part of it a result keeps. Pure: the
 * queries that answer pages and the step that builds a result call these.
 */

/** A whole number from a caller's query argument, or `fallback` when it is none. */
export function wholeNumber(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.floor(value)) : fallback;
}

/**
 * The page of `messages` from `from`, of at most `limit` messages and
 * `maxBytes` (but always one message, when there is one past `from`).
 * Arguments come from any client: what is not a number means "from the
 * start" / "a full page"; a limit is held to {@link MESSAGE_PAGES.maxLimit}.
 */
export function messagePage(
  messages: readonly ChatMessage[],
  from: unknown,
  limit: unknown = MESSAGE_PAGES.defaultLimit,
  maxBytes: number = MESSAGE_PAGES.maxBytes,
): MessagePage {
  const start = Math.min(wholeNumber(from, 0), messages.length);
  const count = Math.min(Math.max(1, wholeNumber(limit, MESSAGE_PAGES.defaultLimit)), MESSAGE_PAGES.maxLimit);
  const page: ChatMessage[] = [];
  let bytes = 0;
  for (const message of messages.slice(start, start + count)) {
    const size = jsonBytes(message) + 1;
    if (page.length > 0 && bytes + size > maxBytes) break;
    page.push(message);
    bytes += size;
  }
  return { total: messages.length, from: start, messages: page };
}

/**
 * Where the newest messages that together weigh at most `budgetBytes` begin:
 * 0 when all of them fit. The part never begins with tool results whose
 * call is left out, and holds at least the last message.
 */
export function newestThatFit(messages: readonly ChatMessage[], budgetBytes: number): number {
  let from = messages.length;
  let bytes = 2;
  while (from > 0) {
    const size = jsonBytes(messages[from - 1]) + 1;
    if (bytes + size > budgetBytes) break;
    bytes += size;
    from -= 1;
  }
  if (from === 0) return 0;
  while (from < messages.length - 1 && messages[from]?.role === 'tool') from += 1;
  return Math.min(from, Math.max(0, messages.length - 1));
}
