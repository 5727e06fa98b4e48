import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The browser's sign-in, kept in a cookie and held nowhere else: its expiry time and an HMAC-SHA256 of that time under
 * the server's token. Nothing to store, nothing to leak (the cookie is not the token and does not reveal it), and
 * changing the token signs every browser out.
 */

/** A session value that lasts until `expiresAt` (ms since the epoch). */
export function createSession(token: string, expiresAt: number): string {
  return `${expiresAt}.${sign(token, expiresAt)}`;
}

/** Whether `value` is a session this token made that has not expired at `now`. */
export function isValidSession(token: string, value: string | undefined, now: number = Date.now()): boolean {
  const match = value === undefined ? null : /^(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (match === null) return false;
  const expiresAt = Number(match[1]);
  if (!(expiresAt > now)) return false;
  return timingSafeEqual(Buffer.from(match[2]!), Buffer.from(sign(token, expiresAt)));
}

function sign(token: string, expiresAt: number): string {
  return createHmac('sha256', token).update(`agent-codec-session:${expiresAt}`).digest('base64url');
}

/** The value of cookie `name` in a `Cookie` header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}
