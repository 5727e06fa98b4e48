import { canonicalVisibilityQuery, quoteLiteral } from '../../src/client/visibility-query';
import { InvalidListQueryError } from '../../src/client/invalid-list-query-error';

/** A run listing's filter, re-written from the tokens Temporal's visibility parser would read. */
describe('canonicalVisibilityQuery', () => {
  test.each([
    ['AgentTotalTokens > 1000', 'AgentTotalTokens > 1000'],
    [`AgentStatus IN ('completed',"failed")`, `AgentStatus IN ( 'completed' , 'failed' )`],
    [
      String.raw`AgentStatus = 'it\'s' OR AgentStatus = 'it''s'`,
      String.raw`AgentStatus = 'it\'s' OR AgentStatus = 'it\'s'`,
    ],
    [String.raw`WorkflowId = 'a\\b'`, String.raw`WorkflowId = 'a\\b'`],
    [
      'StartTime BETWEEN "2026-01-01T00:00:00Z" AND "2026-02-01T00:00:00Z"',
      "StartTime BETWEEN '2026-01-01T00:00:00Z' AND '2026-02-01T00:00:00Z'",
    ],
    [
      'NOT (AgentIterations >= -1) AND `AgentStatus` IS NOT NULL',
      'NOT ( AgentIterations >= -1 ) AND `AgentStatus` IS NOT NULL',
    ],
  ])('%s is written back as %s', (query, canonical) => {
    expect(canonicalVisibilityQuery(query)).toBe(canonical);
  });

  test.each([
    [String.raw`AgentStatus = '\'') OR (WorkflowId != '\''`, 'closes nothing'],
    ['AgentStatus = 1)', 'closes nothing'],
    ['(AgentStatus = 1', 'never closed'],
    ["AgentStatus = 'open", 'never closed'],
    [String.raw`AgentStatus = '\n'`, 'escape'],
    ["AgentStatus = 'x' /* */", '"/"'],
    ["AgentStatus = 'x' -- c", '"-"'],
    ["AgentStatus = 'x'; DROP", '";"'],
  ])('%s is refused (%s)', (query, reason) => {
    expect(() => canonicalVisibilityQuery(query)).toThrow(InvalidListQueryError);
    expect(() => canonicalVisibilityQuery(query)).toThrow(reason);
  });

  test('quoteLiteral escapes backslashes before quotes', () => {
    expect(quoteLiteral(String.raw`x\'`)).toBe(String.raw`'x\\\''`);
  });
});
