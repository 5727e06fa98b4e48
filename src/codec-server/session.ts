import { BrowserSessions } from '../http/browser-sessions';

/** The browsers signed in to one codec server process ({@link BrowserSessions}, whose subject is only "signed in"). */
export class CodecSessions {
  private readonly sessions: BrowserSessions<true>;

  constructor(ttlMs: number, maxSessions: number) {
    this.sessions = new BrowserSessions<true>(ttlMs, maxSessions, 'agent-codec-session');
  }

  /** A new session's cookie value and expiry; past `maxSessions`, the oldest session ends. */
  create(now: number = Date.now()): { value: string; expiresAt: number } {
    return this.sessions.open(true, now);
  }

  /** Whether `value` is a session of this process, signed by it, neither expired at `now` nor revoked. */
  isValid(value: string | undefined, now: number = Date.now()): boolean {
    return this.sessions.subjectOf(value, now) !== undefined;
  }

  /** Ends the session `value` names, if it is one of this process's; anything else is ignored. */
  revoke(value: string | undefined): void {
    this.sessions.revoke(value);
  }
}
