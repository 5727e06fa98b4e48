import { ApiProbe } from '../../bench/chaos/api-probe';
import { compareFollowers, type FollowResult } from '../../bench/chaos/sse-follower';

/** The checks of `npm run chaos -- --stack` that judge the API: a resumed SSE follower, and the 503 probe. */

function follower(ids: number[], options: Partial<FollowResult> = {}): FollowResult {
  return {
    events: ids.map((id) => ({ id, type: id === ids.at(-1) ? 'run-end' : 'step', data: JSON.stringify({ seq: id }) })),
    reconnects: [],
    ended: true,
    otherFrames: [],
    ...options,
  };
}

describe('compareFollowers', () => {
  it('passes a follower that resumed with every event the crash-free one got', () => {
    const resumed = follower([1, 2, 3, 4], {
      reconnects: [{ from: 'a', reason: 'terminated', to: 'b', lastEventId: 2, gapMs: 900 }],
    });
    expect(compareFollowers(resumed, follower([1, 2, 3, 4]))).toEqual([]);
  });

  it('finds a gap in the ids, a missing event and a follower that did not reach the end', () => {
    const problems = compareFollowers(follower([1, 2, 4], { ended: false }), follower([1, 2, 3, 4]));
    expect(problems).toEqual([
      "the resumed follower did not reach the run's end",
      "the resumed follower's ids are not contiguous from 1: event 3 has id 4",
      '3 events resumed, 4 crash-free',
      "event id 4 differs from the crash-free follower's",
    ]);
  });

  it('finds an event whose content differs, and a stream that said events were missed', () => {
    const crashFree = follower([1, 2]);
    const resumed = follower([1, 2], { otherFrames: ['events-missed: {"missed":3}'] });
    resumed.events[1] = { id: 2, type: 'run-end', data: '{"seq":2,"other":true}' };
    expect(compareFollowers(resumed, crashFree)).toEqual([
      'the resumed follower was told events were missed',
      "event id 2 differs from the crash-free follower's",
    ]);
  });
});

describe('ApiProbe.verdict', () => {
  it("times the first 503 from the fault and the first 2xx from the part's start", () => {
    const probe = new ApiProbe(['http://api'], 'token', '/runs/r/result');
    const sample = (sentAt: number, answeredAt: number, status: number | 'error') =>
      probe.samples.push({ api: 'http://api', sentAt, answeredAt, status });
    sample(900, 1_100, 200); // in flight at the fault (1000)
    sample(1_300, 3_400, 503);
    sample(3_600, 5_700, 503);
    sample(5_900, 6_000, 'error');
    sample(6_200, 6_500, 200); // before the part is started again (6400): not yet the recovery
    sample(6_700, 6_900, 200);
    sample(7_100, 7_200, 503); // after the recovery: not counted
    expect(probe.verdict(1_000, 6_400)).toEqual({
      requests: 5,
      unavailable: 2,
      slowestUnavailableMs: 2_100,
      faultTo503Ms: 2_400,
      restartTo2xxMs: 500,
      faultTo2xxMs: 5_900,
      inFlight: ['http://api 200 after 0.2 s'],
      others: ['http://api error after 0.1 s'],
    });
  });

  it('says when no 503 and no recovery came', () => {
    const probe = new ApiProbe(['http://api'], 'token', '/runs/r/result');
    probe.samples.push({ api: 'http://api', sentAt: 1_100, answeredAt: 11_100, status: 'error' });
    const verdict = probe.verdict(1_000, 5_000);
    expect(verdict.faultTo503Ms).toBeUndefined();
    expect(verdict.restartTo2xxMs).toBeUndefined();
    expect(verdict.others).toEqual(['http://api error after 10.0 s']);
  });
});
