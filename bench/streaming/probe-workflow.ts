import * as wf from '@temporalio/workflow';
import type { ProbeActivities, ProbeInput } from './probe-types';

/** The deltas a `signal` probe has received: what its follower queries. */
export const probeDeltasQuery = wf.defineQuery<{ texts: string[] }>('probeDeltas');
/** A batch of deltas, sent by the `signal` probe's activity. */
export const probeDeltaSignal = wf.defineSignal<[{ texts: string[] }]>('probeDelta');

const { probeModelCall } = wf.proxyActivities<ProbeActivities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
});

/**
 * The candidate transports the streaming bench measures beside the one the
 * runner uses: one model call whose deltas go out as heartbeat details
 * (followers describe the run) or as signals to the workflow, in batches,
 * as `@temporalio/workflow-streams` publishes (followers query it).
 */
export async function probeWorkflow(input: ProbeInput): Promise<number> {
  const texts: string[] = [];
  wf.setHandler(probeDeltaSignal, (batch) => void texts.push(...batch.texts));
  wf.setHandler(probeDeltasQuery, () => ({ texts }));
  const count = await probeModelCall(input);
  await wf.condition(() => texts.length >= count || input.transport !== 'signal');
  return count;
}
