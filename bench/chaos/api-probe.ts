import { setTimeout as sleep } from 'node:timers/promises';

/** One request of the probe and its answer. */
export interface ProbeSample {
  api: string;
  /** `performance.now()` times. */
  sentAt: number;
  answeredAt: number;
  /** The HTTP status, or `error` when no answer came (refused, reset, or no answer within the probe's timeout). */
  status: number | 'error';
}

/** How the API answered around a fault, from the probe's samples. */
export interface ProbeVerdict {
  /** Requests sent from the fault until the first 2xx after it. */
  requests: number;
  /** Answers 503 among them, and the slowest of those, in ms. */
  unavailable: number;
  slowestUnavailableMs: number;
  /** From the fault to the first 503 answer, in ms. */
  faultTo503Ms?: number;
  /** From the part's start (the command to start it again, not its readiness) to the first 2xx, in ms; and from the fault. */
  restartTo2xxMs?: number;
  faultTo2xxMs?: number;
  /** Answers other than 2xx and 503 (a 500, a timeout): a client could not tell the API was merely waiting. */
  others: string[];
  /** Requests sent before the fault and answered after it: their status and how long they took. */
  inFlight: string[];
}

/** The time the probe waits for one answer before it counts as none (status `error`). */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Asks every API process a question that needs Temporal (`path`, e.g. `GET /runs/:id/result`) every
 * `intervalMs`, one request at a time per API, and keeps every answer: what a load balancer or a client sees while a
 * part of the stack is down.
 */
export class ApiProbe {
  readonly samples: ProbeSample[] = [];
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly apis: readonly string[],
    private readonly token: string,
    private readonly path: string,
    private readonly intervalMs = 200,
  ) {}

  start(): void {
    this.running = true;
    this.loops = this.apis.map((api) => this.loop(api));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /**
   * What the samples sent after `faultAt` say, with the part started again at `restartAt` (`performance.now()`
   * times): a server may answer before its start is over, so the recovery is the first 2xx sent after `restartAt`.
   */
  verdict(faultAt: number, restartAt: number): ProbeVerdict {
    const after = this.samples.filter((sample) => sample.sentAt >= faultAt).sort((a, b) => a.sentAt - b.sentAt);
    const firstBack = after.find((sample) => isSuccess(sample.status) && sample.sentAt >= restartAt);
    const during = after.filter((sample) => firstBack === undefined || sample.sentAt <= firstBack.sentAt);
    const unavailable = during.filter((sample) => sample.status === 503);
    const first503 = [...unavailable].sort((a, b) => a.answeredAt - b.answeredAt)[0];
    return {
      requests: during.length,
      unavailable: unavailable.length,
      slowestUnavailableMs: Math.max(0, ...unavailable.map((sample) => sample.answeredAt - sample.sentAt)),
      ...(first503 === undefined ? {} : { faultTo503Ms: first503.answeredAt - faultAt }),
      ...(firstBack === undefined
        ? {}
        : { restartTo2xxMs: firstBack.answeredAt - restartAt, faultTo2xxMs: firstBack.answeredAt - faultAt }),
      inFlight: this.samples
        .filter((sample) => sample.sentAt < faultAt && sample.answeredAt > faultAt)
        .map((sample) => describeSample(sample)),
      others: during
        .filter((sample) => sample.status !== 503 && !isSuccess(sample.status))
        .map((sample) => describeSample(sample)),
    };
  }

  private async loop(api: string): Promise<void> {
    while (this.running) {
      const sentAt = performance.now();
      let status: number | 'error';
      try {
        const response = await fetch(`${api}${this.path}`, {
          headers: { authorization: `Bearer ${this.token}` },
          signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
        });
        await response.arrayBuffer();
        status = response.status;
      } catch {
        status = 'error';
      }
      this.samples.push({ api, sentAt, answeredAt: performance.now(), status });
      await sleep(this.intervalMs);
    }
  }
}

function describeSample(sample: ProbeSample): string {
  return `${sample.api} ${sample.status} after ${((sample.answeredAt - sample.sentAt) / 1000).toFixed(1)} s`;
}

function isSuccess(status: number | 'error'): boolean {
  return typeof status === 'number' && status >= 200 && status < 300;
}
