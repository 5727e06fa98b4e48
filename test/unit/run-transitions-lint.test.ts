import { lintAll, type LintMessage } from '../helpers/lint-probes';

/**
 * A run's status, and the fields several steps share, change only through the transitions in
 * `src/workflows/agent/run-transitions.ts`: lint fails an assignment elsewhere, so a reader finds every
 * way one of them changes in that file.
 */
const probe = (body: string) =>
  `import type { RunRecord } from '../run-record';\nexport function probe(run: RunRecord): void {\n  ${body}\n}\n`;
const step = 'src/workflows/agent/steps/finish-run.ts';
const transitions = 'src/workflows/agent/run-transitions.ts';

describe('lint keeps changes of the run record in its transitions', () => {
  let results: LintMessage[][];

  beforeAll(async () => {
    results = await lintAll([
      { file: step, code: probe("run.status = 'completed';") },
      { file: step, code: probe("run.messages.push({ role: 'user', content: 'hi' });") },
      { file: step, code: probe('run.turn.agentAnswers = [];') },
      { file: step, code: probe('run.pendingApprovals = [];') },
      { file: step, code: probe("run.messages[0] = { role: 'user', content: 'hi' };") },
      { file: step, code: probe('run.usage.totalTokens = 0;') },
      { file: step, code: probe('run.inputMessageCount += 1;') },
      { file: step, code: probe('run.inputMessageCount++;') },
      { file: step, code: probe('run.usage.totalTokens--;') },
      { file: step, code: probe('delete run.stopRequest;') },
      { file: step, code: probe("run.inbox.splice(0, 1, 'hi');") },
      { file: transitions, code: probe("run.status = 'completed';") },
      // A field one step owns is still that step's to change.
      { file: step, code: probe('run.invocations += 1;') },
    ]);
  }, 120_000);

  it('fails on an assignment to run.status outside the transitions', () => {
    expect(results[0]).toEqual([
      expect.objectContaining({
        ruleId: 'no-restricted-syntax',
        message: expect.stringContaining('run-transitions.ts'),
      }),
    ]);
  });

  it('fails on a change in place of a shared field (by index, by property, compound, ++, delete or a mutating call) outside the transitions', () => {
    for (const messages of results.slice(1, 11)) {
      expect(messages).toEqual([
        expect.objectContaining({
          ruleId: 'no-restricted-syntax',
          message: expect.stringContaining('run-transitions.ts'),
        }),
      ]);
    }
  });

  it('lets the transitions assign them, and a step change a field it alone owns', () => {
    expect(results[11]).toEqual([]);
    expect(results[12]).toEqual([]);
  });
});
