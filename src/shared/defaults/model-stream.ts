/**
 * Streaming a model call's answer to followers.
 * Pure values, imported by workflow code; the runner's defaults are the modules of src/shared/defaults/.
 */

/**
 * How a model call's deltas reach followers: the worker serves each attempt's deltas over HTTP (a small server it
 * starts itself, named in its worker identity) behind the run's stream key; a follower finds it by describing the
 * run and reading the key from its history, and reads it directly. No delta enters the run's history.
 */
export const MODEL_STREAM_DEFAULTS = {
  /** `AGENT_STREAM_HOST`: the address the worker's delta server binds. */
  host: '127.0.0.1',
  /** `AGENT_STREAM_PORT`: its port; 0 picks a free one. */
  port: 0,
  /** How long an ended attempt's deltas stay readable, for a follower that found it late. */
  keepEndedMs: 10_000,
  /** How often a follower describes the run, while a model call runs, to find its stream. */
  discoverPollMs: 100,
  /**
   * How long a follower waits for a worker's stream to answer (its response headers, which the worker sends at
   * once) before it counts the stream port as unreachable: a firewall that drops packets answers nothing at all.
   */
  connectTimeoutMs: 5_000,
  /** How long a follower holds a `model-response` back for the call's last deltas to arrive. */
  drainWaitMs: 2_000,
  /** Characters of a scripted tool call's arguments per streamed fragment. */
  scriptedArgumentChars: 8,
} as const;
