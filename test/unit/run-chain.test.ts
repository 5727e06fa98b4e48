import type { temporal } from '@temporalio/proto';
import { continuedRunId, runChain, type ChainRunRead } from '../../src/temporal/run-chain';

/** A history whose start event names the run it continues (none for a chain's first run). */
function historyContinuing(previous: string | undefined): temporal.api.history.v1.IHistory {
  return { events: [{ workflowExecutionStartedEventAttributes: { continuedExecutionRunId: previous ?? '' } }] };
}

/** A chain of Temporal runs `ids` (oldest first) that records which runs were read. */
function chainOf(ids: string[]): {
  read: (runId: string | undefined) => Promise<ChainRunRead<string>>;
  reads: string[];
} {
  const reads: string[] = [];
  const read = (runId: string | undefined): Promise<ChainRunRead<string>> => {
    const id = runId ?? ids.at(-1)!;
    reads.push(runId ?? 'latest');
    const index = ids.indexOf(id);
    return Promise.resolve({ run: id, history: historyContinuing(index > 0 ? ids[index - 1] : undefined) });
  };
  return { read, reads };
}

async function all<T>(runs: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const run of runs) seen.push(run);
  return seen;
}

describe('runChain', () => {
  test('walks from the latest run back to the first, each start event naming the one before', async () => {
    const { read, reads } = chainOf(['r1', 'r2', 'r3']);
    expect(await all(runChain(read, 'r3'))).toEqual(['r3', 'r2', 'r1']);
    expect(reads).toEqual(['r3', 'r2', 'r1']);
  });

  test("reads the workflow id's latest run when no run id is given", async () => {
    const { read, reads } = chainOf(['r1', 'r2']);
    expect(await all(runChain(read))).toEqual(['r2', 'r1']);
    expect(reads).toEqual(['latest', 'r1']);
  });

  test('reads no earlier run once the caller stops', async () => {
    const { read, reads } = chainOf(['r1', 'r2', 'r3', 'r4']);
    for await (const run of runChain(read, 'r4')) if (run === 'r3') break;
    expect(reads).toEqual(['r4', 'r3']);
  });

  test('ends at a run whose history names a run already read', async () => {
    const read = (runId: string | undefined): Promise<ChainRunRead<string>> =>
      Promise.resolve({ run: runId ?? '', history: historyContinuing(runId === 'a' ? 'b' : 'a') });
    expect(await all(runChain(read, 'a'))).toEqual(['a', 'b']);
  });
});

describe('continuedRunId', () => {
  test("names the run a history's start event continues", () => {
    expect(continuedRunId(historyContinuing('r1'))).toBe('r1');
  });

  test('is undefined for a first run, an empty history and no history', () => {
    expect(continuedRunId(historyContinuing(undefined))).toBeUndefined();
    expect(continuedRunId({ events: [] })).toBeUndefined();
    expect(continuedRunId(undefined)).toBeUndefined();
  });
});
