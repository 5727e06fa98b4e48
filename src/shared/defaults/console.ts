/**
 * The console at `/console/` of the HTTP API: its sign-in and its approvals inbox. Pure values.
 */
export const CONSOLE_DEFAULTS = {
  /** How long a console sign-in (the session cookie) lasts: a working day, as the codec server's. */
  sessionTtlMs: 12 * 60 * 60 * 1000,
  /** Most browsers signed in at once: a session past it signs the oldest out, so sign-ins cannot fill memory. */
  maxSessions: 1000,
  /** Failed sign-ins a client address may make per `loginWindowMs` before every sign-in from it is refused (429). */
  loginFailures: 5,
  /** The window failed sign-ins are counted in: 5 guesses a minute make a 16+ character token unguessable. */
  loginWindowMs: 60_000,
  /** Client addresses whose failed sign-ins are counted at once; the oldest are forgotten past it. */
  loginTrackedAddresses: 10_000,
  /**
   * How often the inbox asks visibility (one list request for every open console of the process, not per run) which
   * runs wait for a decision: visibility reads are not billed actions, and a new wait shows within this time.
   */
  inboxPollMs: 1_000,
  /** Most runs waiting for a decision the inbox follows at once: each is one shared follow of its event log. */
  inboxMaxRuns: 200,
} as const;

/** The name of the console's session cookie. */
export const CONSOLE_SESSION_COOKIE = 'agent_console_session';

/**
 * The header a console request carries with its session's CSRF token: a page of another origin can neither read the
 * token nor send this header without a CORS preflight the API never grants, so the cookie alone authenticates nothing.
 */
export const CONSOLE_CSRF_HEADER = 'x-agent-console-csrf';
