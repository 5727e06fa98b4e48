import { DefaultLogger, Runtime } from '@temporalio/worker';
import { measureFeatureCost, type FeatureCase } from './feature-cost';

/**
 * One process of the tracing comparison (`tracing-cost.ts`): the plain runs of `FEATURE_CASES`, measured in a process
 * whose environment turns tracing on or leaves it off (tracing is process-wide, so the two cannot share a process).
 * Prints the rows as one JSON line.
 */
async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const cases = JSON.parse(process.env.FEATURE_CASES ?? '[]') as FeatureCase[];
  const rows = await measureFeatureCost({
    variants: [],
    cases,
    runs: Number(process.env.FEATURE_RUNS ?? '3'),
    log: () => undefined,
  });
  console.log(JSON.stringify(rows));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
