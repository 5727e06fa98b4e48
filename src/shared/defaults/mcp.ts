/** MCP servers as tools: the client's limits and names. */
export const MCP_DEFAULTS = {
  /** How long starting a server and its MCP handshake may take (or a call's timeout, when shorter). */
  connectTimeoutMs: 30_000,
  /**
   * Starting a server (when not yet running) and reading all pages of its `tools/list`, in all: under the catalog's
   * timeout (30 s), so a server that hangs is reported unavailable rather than time the catalog out.
   */
  listTimeoutMs: 20_000,
  /** How long a server whose call timed out has to answer a ping before it is restarted (at most half the call's timeout). */
  pingTimeoutMs: 5_000,
  /** Pages of `tools/list` read before a server that keeps paging is cut off. */
  maxToolPages: 100,
  /** The `_meta` key of the runner's idempotency key in every `tools/call`. */
  idempotencyMetaKey: 'agent-runner/idempotency-key',
  /** The version the client announces in the MCP handshake. */
  clientVersion: '0.3.0',
  /** Longest tool description passed on to the model; a longer one is cut. */
  maxDescriptionChars: 4_000,
  /**
   * How long a call waiting on a person's answer to its server's question (elicitation) waits before it asks its run
   * again after the run did not answer (its worker restarting, the server unreachable). Otherwise it asks only when a
   * workflow task of the run finished.
   */
  elicitationRetryMs: 500,
  /** Times a server's question is put to the person when the answer does not fit its form; then it is declined. */
  elicitationTries: 3,
  /**
   * Most tokens one sampling answer (`sampling/createMessage`) may have when the server's entry sets no
   * `samplingMaxTokens`: the server's own `maxTokens` is lowered to it, so a server cannot spend a run's budget
   * in one request; 1,024 holds the short summaries and classifications servers sample for.
   */
  samplingMaxTokens: 1_024,
} as const;
