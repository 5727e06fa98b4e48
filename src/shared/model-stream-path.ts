/** One attempt of a run's model call, as its activity knows it and a description of the run shows it. */
export interface ModelStreamCall {
  runId: string;
  activityId: string;
  attempt: number;
}

/**
 * Where a worker's stream listener serves an attempt of a run's model call, below `<base>/model-streams/`: the
 * activity opens it there and a follower derives it from the run's description, so nothing is announced.
 */
export function modelStreamPath(call: ModelStreamCall): string {
  return `calls/${encodeURIComponent(call.runId)}/${encodeURIComponent(call.activityId)}/${call.attempt}`;
}
