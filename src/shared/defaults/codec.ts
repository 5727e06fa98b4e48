/**
 * The payload codec.
 * Pure values, imported by workflow code; the runner's defaults are the modules of src/shared/defaults/.
 */

/** How a remote payload codec (a codec server at `TEMPORAL_CODEC_ENDPOINT`) is called. */
export const REMOTE_CODEC_DEFAULTS = {
  /** How long one `/encode` or `/decode` request may take before it fails. */
  timeoutMs: 10_000,
} as const;
