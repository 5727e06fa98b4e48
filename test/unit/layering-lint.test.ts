import { lintAll, type LintMessage } from '../helpers/lint-probes';

/**
 * The layering the repository's lint config enforces: rules under `src/workflows/rules/` are pure,
 * so a Temporal import there (or one of the agent's durable steps) fails `npm run lint`; a step may
 * import Temporal. Each probe is linted by ESLint with the repository's config, as the content of an
 * existing file in that folder (the typed parser only knows files of the project).
 */
const temporalImport = "import * as wf from '@temporalio/workflow';\nexport const id = wf.uuid4;\n";

describe('lint keeps rules apart from durable steps', () => {
  let results: LintMessage[][];

  beforeAll(async () => {
    results = await lintAll([
      { file: 'src/workflows/rules/nudge-rule.ts', code: temporalImport },
      {
        file: 'src/workflows/rules/nudge-rule.ts',
        code: "import { finishRun } from '../agent/steps/finish-run';\nexport const f = finishRun;\n",
      },
      { file: 'src/workflows/agent/steps/finish-run.ts', code: temporalImport },
      { file: 'src/workflows/agent/steps/finish-run.ts', code: "import fs from 'node:fs';\nexport const f = fs;\n" },
    ]);
  }, 120_000);

  it('fails on a Temporal import under rules/', () => {
    expect(results[0]).toEqual([
      expect.objectContaining({
        ruleId: 'no-restricted-imports',
        message: expect.stringContaining('Rules are pure: no Temporal here'),
      }),
    ]);
  });

  it("fails on an import of the agent's steps under rules/", () => {
    expect(results[1]).toEqual([
      expect.objectContaining({
        ruleId: 'no-restricted-imports',
        message: expect.stringContaining('they take plain data'),
      }),
    ]);
  });

  it('lets a step import Temporal, and bans Node built-ins there as in all workflow code', () => {
    expect(results[2]).toEqual([]);
    expect(results[3]).toEqual([
      expect.objectContaining({ ruleId: 'no-restricted-imports', message: expect.stringContaining('deterministic') }),
    ]);
  });
});
