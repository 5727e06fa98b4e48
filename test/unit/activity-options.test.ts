import {
  ACTIVITY_DEFAULTS,
  ACTIVITY_RETRY_POLICIES,
  MODEL_CALL_PROVIDER_BACKOFF,
} from '../../src/shared/defaults/activities';

/**
 * The options of the three activity stubs (`src/workflows/agent/activities.ts`) are part of every
 * scheduled activity's command, so of running workflows' histories: they are pinned here as they were
 * when the stubs were written inline. Change them on purpose only, and say so in the commit.
 */
describe('the activity stubs keep their options', () => {
  test('the tool catalog: 30 s, 5 attempts', () => {
    expect({
      startToCloseTimeout: ACTIVITY_DEFAULTS.catalogTimeout,
      retry: ACTIVITY_RETRY_POLICIES.catalog,
    }).toStrictEqual({
      startToCloseTimeout: '30 seconds',
      retry: { maximumAttempts: 5 },
    });
  });

  test('model calls: 5 min, heartbeat 50 s, a flat second without limit; the provider: 1 s doubling to 1 min, 8 attempts', () => {
    expect({
      startToCloseTimeout: ACTIVITY_DEFAULTS.modelCallTimeout,
      heartbeatTimeout: ACTIVITY_DEFAULTS.heartbeatTimeout,
      retry: ACTIVITY_RETRY_POLICIES.modelCall,
    }).toStrictEqual({
      startToCloseTimeout: '5 minutes',
      heartbeatTimeout: '50 seconds',
      retry: { initialInterval: '1 second', backoffCoefficient: 1, maximumAttempts: Number.POSITIVE_INFINITY },
    });
    expect({ ...MODEL_CALL_PROVIDER_BACKOFF, maximumAttempts: ACTIVITY_DEFAULTS.modelCallMaxAttempts }).toStrictEqual({
      initialIntervalMs: 1_000,
      backoffCoefficient: 2,
      maximumIntervalMs: 60_000,
      maximumAttempts: 8,
    });
  });

  test('tool calls: 5 min, heartbeat 50 s, 1 s doubling to 10 s, attempts bounded by the deadline only', () => {
    expect({
      startToCloseTimeout: ACTIVITY_DEFAULTS.toolCallTimeout,
      heartbeatTimeout: ACTIVITY_DEFAULTS.heartbeatTimeout,
      retry: ACTIVITY_RETRY_POLICIES.toolCall,
    }).toStrictEqual({
      startToCloseTimeout: '5 minutes',
      heartbeatTimeout: '50 seconds',
      retry: {
        initialInterval: '1 second',
        backoffCoefficient: 2,
        maximumInterval: '10 seconds',
        maximumAttempts: Number.POSITIVE_INFINITY,
      },
    });
    expect(ACTIVITY_DEFAULTS.toolCallDeadlineFactor).toBe(3);
  });
});
