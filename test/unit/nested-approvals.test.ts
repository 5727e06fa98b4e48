import type { PendingApproval } from '../../src/shared/control';
import {
  approvalsKey,
  listedNestedApprovals,
  readNestedApprovals,
  routeDecision,
  type NestedRun,
} from '../../src/workflows/rules/nested-approvals';

const pending = (callId: string, extra: Partial<PendingApproval> = {}): PendingApproval => ({
  callId,
  toolName: 'ping',
  arguments: { host: 'a' },
  requestedAt: '2025-01-01T00:00:00.000Z',
  ...extra,
});

function runs(): Map<string, NestedRun> {
  return new Map([
    ['parent/call-1-1', { callId: 'call-1-1', toolName: 'guarded', approvals: [pending('call-1-1')] }],
    [
      'parent/call-1-2',
      {
        callId: 'call-1-2',
        toolName: 'manager',
        // A grandchild's approval, as the child lists it: already prefixed, naming the run that waits.
        approvals: [
          pending('call-2-1/call-1-1', { run: { workflowId: 'parent/call-1-2/call-2-1', toolName: 'guarded' } }),
        ],
      },
    ],
  ]);
}

describe("nested agents' approvals as the parent lists and routes them", () => {
  test('listed under the parent call id, naming the run that waits (the deepest one)', () => {
    expect(listedNestedApprovals(runs())).toEqual([
      pending('call-1-1/call-1-1', { run: { workflowId: 'parent/call-1-1', toolName: 'guarded' } }),
      pending('call-1-2/call-2-1/call-1-1', { run: { workflowId: 'parent/call-1-2/call-2-1', toolName: 'guarded' } }),
    ]);
  });

  test('a decision goes to the child whose call it is, with the id that child knows', () => {
    expect(routeDecision('call-1-1/call-1-1', runs())).toMatchObject({
      workflowId: 'parent/call-1-1',
      callId: 'call-1-1',
    });
    expect(routeDecision('call-1-2/call-2-1/call-1-1', runs())).toMatchObject({
      workflowId: 'parent/call-1-2',
      callId: 'call-2-1/call-1-1',
    });
  });

  test("the run's own calls, unknown ids and malformed ones are not routed", () => {
    for (const callId of ['call-1-1', 'call-9-9/call-1-1', 'call-1-1/call-7-7', '/call-1-1', 42, undefined]) {
      expect(routeDecision(callId, runs())).toBeUndefined();
    }
  });

  test('a report is read only from a nested agent this run started, and only when well formed', () => {
    expect(readNestedApprovals({ workflowId: 'parent/call-1-1', approvals: [pending('call-2-1')] }, runs())).toEqual({
      workflowId: 'parent/call-1-1',
      approvals: [pending('call-2-1')],
    });
    expect(readNestedApprovals({ workflowId: 'someone-else', approvals: [] }, runs())).toBeUndefined();
    expect(readNestedApprovals({ workflowId: 'parent/call-1-1', approvals: [{ callId: 1 }] }, runs())).toBeUndefined();
    expect(readNestedApprovals({ workflowId: 'parent/call-1-1', approvals: 'x' }, runs())).toBeUndefined();
    expect(readNestedApprovals(null, runs())).toBeUndefined();
  });

  test('the report key changes with the set of waiting calls only', () => {
    expect(approvalsKey([pending('a'), pending('b')])).toBe(
      approvalsKey([pending('a', { arguments: 1 }), pending('b')]),
    );
    expect(approvalsKey([pending('a')])).not.toBe(approvalsKey([pending('a'), pending('b')]));
  });
});
