/** What the in-flight bench and its worker process (`worker-process.ts`) say to each other. */

/** A message from the bench: take a memory sample. */
export interface SampleRequest {
  type: 'sample';
}

/** The worker's answer: bytes, after a collection. */
export interface MemorySample {
  type: 'memory';
  rss: number;
  heapUsed: number;
}

/** What the bench passes in the environment. */
export interface InFlightWorkerEnvironment {
  INFLIGHT_TEMPORAL_ADDRESS: string;
  INFLIGHT_TASK_QUEUE: string;
  INFLIGHT_MODEL_URL: string;
}

/** Printed once the worker is created and about to poll. */
export const READY_LINE = 'inflight worker ready';
