/**
 * The codec server (`agent-runner codec-server`): what it uses when a variable or option is not set, and the limits
 * it holds requests to. Pure values.
 */
export const CODEC_SERVER_DEFAULTS = {
  /** `AGENT_CODEC_SERVER_HOST`. */
  host: '127.0.0.1',
  /** `AGENT_CODEC_SERVER_PORT`: the port Temporal's codec-server samples use; 0 picks a free one. */
  port: 8888,
  /** `AGENT_CODEC_CORS_ORIGINS`: the web UI of `temporal server start-dev`, under both of its local names. */
  corsOrigins: ['http://localhost:8233', 'http://127.0.0.1:8233'],
  /** Largest request body: a few of Temporal's 2 MiB payloads, base64-encoded (a third larger), with room to spare. */
  bodyLimitBytes: 8 * 1024 * 1024,
  /** Most payloads one request may carry; the web UI and the CLI send one event's payloads at a time. */
  maxPayloads: 1000,
  /** How long a browser sign-in (the session cookie) lasts. */
  sessionTtlMs: 12 * 60 * 60 * 1000,
  /** Most browsers signed in at once: a session past it signs the oldest out, so sign-ins cannot fill memory. */
  maxSessions: 1000,
  /** Failed sign-ins a client address may make per `loginWindowMs` before every sign-in from it is refused (429). */
  loginFailures: 5,
  /** The window failed sign-ins are counted in: 5 guesses a minute make a 16+ character token unguessable. */
  loginWindowMs: 60_000,
  /** Client addresses whose failed sign-ins are counted at once; the oldest are forgotten past it. */
  loginTrackedAddresses: 10_000,
  /** How long a browser may cache a preflight answer. */
  preflightMaxAgeSeconds: 600,
} as const;

/** The name of the session cookie the codec server's sign-in page sets. */
export const CODEC_SESSION_COOKIE = 'agent_codec_session';
