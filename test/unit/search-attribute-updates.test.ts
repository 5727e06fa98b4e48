import { SEARCH_ATTRIBUTE_COUNTER_STEP } from '../../src/shared/defaults/activities';
import { isMeaningfulChange, type SearchAttributeValues } from '../../src/workflows/rules/search-attribute-updates';

const running: SearchAttributeValues = {
  status: 'running',
  iterations: 3,
  totalTokens: 300,
  pendingApprovals: 0,
  terminationReason: '',
};

describe('isMeaningfulChange', () => {
  test('the first publish of a Temporal run is always sent', () => {
    expect(isMeaningfulChange(undefined, running)).toBe(true);
  });

  test('a new status, pending approvals or termination reason is sent at once', () => {
    expect(isMeaningfulChange(running, { ...running, status: 'waiting_for_approval', pendingApprovals: 1 })).toBe(true);
    expect(isMeaningfulChange(running, { ...running, pendingApprovals: 2 })).toBe(true);
    expect(isMeaningfulChange(running, { ...running, status: 'completed' })).toBe(true);
    expect(
      isMeaningfulChange(running, { ...running, status: 'failed', terminationReason: 'failed:MaxInvocationsExceeded' }),
    ).toBe(true);
  });

  test('counters alone wait until the run is SEARCH_ATTRIBUTE_COUNTER_STEP iterations further', () => {
    expect(SEARCH_ATTRIBUTE_COUNTER_STEP).toBe(10);
    expect(isMeaningfulChange(running, { ...running, iterations: 4, totalTokens: 400 })).toBe(false);
    expect(isMeaningfulChange(running, { ...running, iterations: 12, totalTokens: 5_000_000 })).toBe(false);
    expect(isMeaningfulChange(running, { ...running, iterations: 13, totalTokens: 1_300 })).toBe(true);
  });

  test('nothing changed is nothing to send', () => {
    expect(isMeaningfulChange(running, { ...running })).toBe(false);
  });
});
