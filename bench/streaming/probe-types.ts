/** Which candidate transport a probe run measures. */
export interface ProbeInput {
  model: string;
  transport: 'heartbeat' | 'signal';
  /** Signals go out at most this often, in batches. */
  batchMs: number;
}

/** What the probe's worker runs; the answer is the number of text deltas. */
export interface ProbeActivities {
  probeModelCall(input: ProbeInput): Promise<number>;
}

/** What the `heartbeat` probe heartbeats: every delta so far (a heartbeat replaces the one before). */
export interface ProbeHeartbeat {
  texts: string[];
}
