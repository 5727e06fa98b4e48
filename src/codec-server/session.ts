import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The browsers signed in to one codec server process: each session is a random id the server holds with its
 * expiry, sent as a cookie signed with a random key of the process (never the token, so the cookie tells nothing
 * about it). Signing out revokes the id server-side, so a copied cookie replayed afterwards is refused; a restart
 * signs every browser out.
 */
export class CodecSessions {
  private readonly key = randomBytes(32);
  /** Session id to its expiry (ms since the epoch), oldest first. */
  private readonly live = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxSessions: number,
  ) {}

  /** A new session's cookie value and expiry; past `maxSessions`, the oldest session ends. */
  create(now: number = Date.now()): { value: string; expiresAt: number } {
    this.prune(now);
    while (this.live.size >= this.maxSessions) this.live.delete(this.live.keys().next().value as string);
    const id = randomBytes(16).toString('base64url');
    const expiresAt = now + this.ttlMs;
    this.live.set(id, expiresAt);
    return { value: `${id}.${expiresAt}.${this.sign(id, expiresAt)}`, expiresAt };
  }

  /** Whether `value` is a session of this process, signed by it, neither expired at `now` nor revoked. */
  isValid(value: string | undefined, now: number = Date.now()): boolean {
    const session = this.read(value);
    return session !== undefined && session.expiresAt > now && this.live.get(session.id) === session.expiresAt;
  }

  /** Ends the session `value` names, if it is one of this process's; anything else is ignored. */
  revoke(value: string | undefined): void {
    const session = this.read(value);
    if (session !== undefined) this.live.delete(session.id);
  }

  private read(value: string | undefined): { id: string; expiresAt: number } | undefined {
    const match = value === undefined ? null : /^([A-Za-z0-9_-]{22})\.(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(value);
    if (match === null) return undefined;
    const [, id, expiry, signature] = match as unknown as [string, string, string, string];
    const expiresAt = Number(expiry);
    if (!timingSafeEqual(Buffer.from(signature), Buffer.from(this.sign(id, expiresAt)))) return undefined;
    return { id, expiresAt };
  }

  private sign(id: string, expiresAt: number): string {
    return createHmac('sha256', this.key).update(`agent-codec-session:${id}:${expiresAt}`).digest('base64url');
  }

  private prune(now: number): void {
    for (const [id, expiresAt] of this.live) if (expiresAt <= now) this.live.delete(id);
  }
}

/** The value of cookie `name` in a `Cookie` header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}
