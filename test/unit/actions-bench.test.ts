import { checkBudgets } from '../../bench/actions/budgets';
import { actionCounts, totalOf } from '../../bench/actions/prometheus';

describe("the actions bench's pure parts", () => {
  test('sums the action counter by namespace and type, ignoring other metrics and comments', () => {
    const page = [
      '# HELP action action',
      '# TYPE action counter',
      'action{action_type="grpc_StartWorkflowExecution",namespace="a_1",operation="StartWorkflowExecution",service_name="frontend"} 1',
      'action{action_type="command_ScheduleActivityTask",namespace="a_1",operation="RespondWorkflowTaskCompleted",service_name="history"} 19',
      'action{action_type="command_ScheduleActivityTask",namespace="a_1",operation="Other",service_name="history"} 1',
      'action{action_type="grpc_QueryWorkflow",namespace="b",service_name="frontend"} 3',
      'action_latency{action_type="x",namespace="a_1"} 99',
      'persistence_requests{namespace="a_1"} 5',
    ].join('\n');
    const counts = actionCounts(page);

    expect([...(counts.get('a_1') ?? [])]).toEqual([
      ['grpc_StartWorkflowExecution', 1],
      ['command_ScheduleActivityTask', 20],
    ]);
    expect(totalOf(counts.get('a_1'))).toBe(21);
    expect(totalOf(counts.get('b'))).toBe(3);
    expect(totalOf(counts.get('missing'))).toBe(0);
  });

  test('checks the unwatched allowance and the per-iteration watching budget', () => {
    const checks = checkBudgets([
      { latencyMs: 500, iterations: 10, bare: 20, unwatched: 25, watched: { cli: 40, 'sse-10': 41 } },
      { latencyMs: 3000, iterations: 10, bare: 20, unwatched: 26, watched: {} },
    ]);

    expect(checks.map((check) => [check.latencyMs, check.measured, check.pass])).toEqual([
      [500, 5, true],
      [500, 1.5, true],
      [500, 1.6, false],
      [3000, 6, false],
    ]);
  });
});
