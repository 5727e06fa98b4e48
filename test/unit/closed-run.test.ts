import { closedRunEvents, closedRunState, type ClosedRunRecord } from '../../src/shared/closed-run';
import { type AgentResult } from '../../src/shared/agent-result';
import { type RunEvent } from '../../src/shared/run-events';
import { withAnswerRestored } from '../../src/shared/result-answer';
import { EventLog } from '../../src/workflows/agent/event-log';

/** A finished run's result carries its last state and newest events; readers page them as the queries would. */

function logOf(count: number): EventLog {
  const log = new EventLog();
  for (let index = 0; index < count; index += 1)
    log.append('user-message', { content: `message ${index} ${'x'.repeat(100)}` }, new Date(0));
  return log;
}

const result: AgentResult = {
  schemaVersion: 1,
  response: 'done',
  terminationReason: { type: 'complete' },
  iterations: 1,
  invocations: 0,
  consecutiveNudges: 0,
  restrictionInjections: 0,
  usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
  messages: [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: 'done' },
  ],
  generatedMessages: [{ sender: 'ai', message: 'done' }],
};

function recordOf(log: EventLog, budgetBytes: number): ClosedRunRecord {
  return {
    state: {
      schemaVersion: 1,
      status: 'completed',
      iteration: 1,
      invocations: 0,
      consecutiveNudges: 0,
      restrictionInjections: 0,
      usage: result.usage,
      activity: 'completed (complete) after 1 iteration(s)',
      pendingApprovals: [],
      limits: {} as ClosedRunRecord['state']['limits'],
      terminationReason: result.terminationReason,
    },
    events: log.carryWithin(budgetBytes),
  };
}

describe('the closed-run record', () => {
  test('pages the carried events as the events query pages the log', () => {
    const log = logOf(20);
    const record = recordOf(log, 1_000_000);
    for (const after of [0, 5, 19, 20, 30]) expect(closedRunEvents(record, after)).toEqual(log.page(after));
    expect(closedRunEvents(record, 3, 2)).toEqual(log.page(3, 2));
  });

  test('carries the newest events that fit its budget, and says how many a cursor before them missed', () => {
    const log = logOf(20);
    const record = recordOf(log, 1_000);
    const kept = record.events.recent;
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(20);
    expect(Buffer.byteLength(JSON.stringify(kept))).toBeLessThanOrEqual(1_000);
    expect(kept.at(-1)?.seq).toBe(20);
    const first = kept[0] as RunEvent;
    expect(closedRunEvents(record, 0)).toEqual({ events: kept, nextCursor: 20, missed: first.seq - 1 });
  });

  test("answers the state query's shape, with the result's messages and the last event", () => {
    const log = logOf(3);
    const record = recordOf(log, 1_000_000);
    expect(closedRunState(result, record)).toEqual({
      ...record.state,
      messages: result.messages,
      lastEvent: log.last(),
    });
  });

  test('is stripped from the result readers hand on', () => {
    const carried = { ...result, closedRun: recordOf(logOf(2), 1_000_000) };
    expect(withAnswerRestored(carried)).toEqual(result);
    expect(withAnswerRestored(result)).toBe(result);
  });
});
