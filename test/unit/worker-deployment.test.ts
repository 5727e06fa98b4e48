import type { WorkerDeploymentOptions } from '@temporalio/worker';
import { loadWorkerDeployment } from '../../src/config/worker-deployment';
import { withWorkerDeployment, workerDeploymentOptions } from '../../src/worker/deployment';

describe('loadWorkerDeployment', () => {
  test('neither variable: an unversioned worker', () => {
    expect(loadWorkerDeployment({})).toBeUndefined();
  });

  test('both: a versioned worker, auto-upgrade by default, pinned when asked', () => {
    expect(loadWorkerDeployment({ AGENT_DEPLOYMENT_NAME: 'agents', AGENT_BUILD_ID: 'b1' })).toEqual({
      deploymentName: 'agents',
      buildId: 'b1',
      defaultVersioning: 'auto-upgrade',
    });
    expect(
      loadWorkerDeployment({
        AGENT_DEPLOYMENT_NAME: 'agents',
        AGENT_BUILD_ID: 'b1',
        AGENT_VERSIONING_DEFAULT: 'pinned',
      })?.defaultVersioning,
    ).toBe('pinned');
  });

  test('one without the other, or an unknown behaviour, is a configuration error naming the variable', () => {
    expect(() => loadWorkerDeployment({ AGENT_BUILD_ID: 'b1' })).toThrow(/go together \(only AGENT_BUILD_ID is set\)/);
    expect(() => loadWorkerDeployment({ AGENT_DEPLOYMENT_NAME: 'agents' })).toThrow(/only AGENT_DEPLOYMENT_NAME/);
    expect(() =>
      loadWorkerDeployment({ AGENT_DEPLOYMENT_NAME: 'a', AGENT_BUILD_ID: 'b', AGENT_VERSIONING_DEFAULT: 'sticky' }),
    ).toThrow(/AGENT_VERSIONING_DEFAULT="sticky": expected pinned or auto-upgrade/);
  });
});

describe('the worker deployment in the worker options', () => {
  const deployment = { deploymentName: 'agents', buildId: 'b1', defaultVersioning: 'pinned' as const };

  test("Temporal's options: Worker Versioning on, the default behaviour in Temporal's spelling", () => {
    expect(workerDeploymentOptions(deployment)).toEqual({
      version: { deploymentName: 'agents', buildId: 'b1' },
      useWorkerVersioning: true,
      defaultVersioningBehavior: 'PINNED',
    });
    expect(workerDeploymentOptions({ deploymentName: 'agents', buildId: 'b1' }).defaultVersioningBehavior).toBe(
      'AUTO_UPGRADE',
    );
  });

  test('set where the worker has none, kept when the same, refused when different', () => {
    const worker: { taskQueue: string; workerDeploymentOptions?: WorkerDeploymentOptions } = { taskQueue: 'q' };
    expect(withWorkerDeployment(worker, undefined)).toEqual({ taskQueue: 'q' });
    const set = withWorkerDeployment(worker, deployment);
    expect(set.workerDeploymentOptions).toEqual(workerDeploymentOptions(deployment));
    expect(withWorkerDeployment(set, deployment)).toBe(set);
    expect(() =>
      withWorkerDeployment(
        { workerDeploymentOptions: workerDeploymentOptions({ ...deployment, buildId: 'b2' }) },
        deployment,
      ),
    ).toThrow(
      /workerDeploymentOptions \(agents:b2, PINNED\) differ from the plugin's deployment option \(agents:b1, PINNED\)/,
    );
  });
});
