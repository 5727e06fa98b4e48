import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The browsers signed in to one process: a random session id with expiry and subject, in a cookie signed with a
 * per-process key (never the token). Sign-out revokes it server-side; a restart signs everyone out.
 */
export class BrowserSessions<Subject> {
  private readonly key = randomBytes(32);
  /** Session id to its expiry (ms since the epoch) and subject, oldest first. */
  private readonly live = new Map<string, { expiresAt: number; subject: Subject }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxSessions: number,
    /** Bound into every signature, so a cookie of one kind of session is never valid as another's. */
    private readonly purpose: string,
  ) {}

  /** A new session's cookie value and expiry; past `maxSessions`, the oldest session ends. */
  open(subject: Subject, now: number = Date.now()): { value: string; expiresAt: number } {
    this.prune(now);
    while (this.live.size >= this.maxSessions) this.live.delete(this.live.keys().next().value as string);
    const id = randomBytes(16).toString('base64url');
    const expiresAt = now + this.ttlMs;
    this.live.set(id, { expiresAt, subject });
    return { value: `${id}.${expiresAt}.${this.sign(id, expiresAt)}`, expiresAt };
  }

  /** The subject of session `value`, when it is one of this process, signed by it, neither expired nor revoked. */
  subjectOf(value: string | undefined, now: number = Date.now()): { subject: Subject; expiresAt: number } | undefined {
    const session = this.read(value);
    if (session === undefined || session.expiresAt <= now) return undefined;
    const held = this.live.get(session.id);
    return held !== undefined && held.expiresAt === session.expiresAt
      ? { subject: held.subject, expiresAt: held.expiresAt }
      : undefined;
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
    return createHmac('sha256', this.key).update(`${this.purpose}:${id}:${expiresAt}`).digest('base64url');
  }

  private prune(now: number): void {
    for (const [id, { expiresAt }] of this.live) if (expiresAt <= now) this.live.delete(id);
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
