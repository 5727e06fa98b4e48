import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.NoCurrentVersionError');

/**
 * A run asked to be pinned (`versioning: 'pinned'`), and the task queue has no current worker deployment version to
 * pin it to: its workers are unversioned (no `AGENT_DEPLOYMENT_NAME` / `AGENT_BUILD_ID`), or no version of their
 * deployment has been made current yet. Nothing was started.
 */
export class NoCurrentVersionError extends AgentRunnerError {
  override readonly name = 'NoCurrentVersionError';

  private get [marker](): true {
    return true;
  }

  constructor(readonly taskQueue: string) {
    super(
      `versioning: 'pinned' needs a current worker deployment version on task queue "${taskQueue}", and it has none: ` +
        'start versioned workers (AGENT_DEPLOYMENT_NAME, AGENT_BUILD_ID) and make their build current ' +
        '(`temporal worker deployment set-current-version`), or start the run without `versioning` ' +
        '(see docs/operations/deploys.md).',
    );
  }

  static override isInstance(error: unknown): error is NoCurrentVersionError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
