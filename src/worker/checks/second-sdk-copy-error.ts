import { AgentRunnerError } from '../../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.SecondSdkCopyError');

/**
 * A worker would run workflow code against two copies of `@temporalio/workflow`. Each workflow task would fail
 * (`TypeError: Cannot read private member #cancelRequested ...`) and be retried forever, so every run would hang;
 * `AgentRunnerPlugin` refuses such a worker at `Worker.create` with this error instead.
 */
export class SecondSdkCopyError extends AgentRunnerError {
  override readonly name = 'SecondSdkCopyError';

  private get [marker](): true {
    return true;
  }

  /** Where agent-runner resolves `@temporalio/workflow`. */
  readonly ours: string;
  /** Where the other copy is. */
  readonly theirs: string;

  constructor(fields: { ours: string; theirs: string; importer: string }) {
    super(
      `AgentRunnerPlugin: this worker would bundle two copies of @temporalio/workflow: agent-runner's at ${fields.ours}, ` +
        `and the one ${fields.importer} resolves at ${fields.theirs}. Workflow code from two copies of the SDK fails every ` +
        'workflow task, so every run would hang. Keep one copy: agent-runner takes @temporalio/* as peer dependencies, so ' +
        'install the same @temporalio/* version everywhere in your app, run `npm dedupe`, and check that ' +
        '`npm ls @temporalio/workflow` lists one version, deduped. A linked checkout of agent-runner (`npm install ../agent-runner`) ' +
        'brings its own node_modules: install its packed tarball (`npm pack`) instead.',
    );
    this.ours = fields.ours;
    this.theirs = fields.theirs;
  }

  static override isInstance(error: unknown): error is SecondSdkCopyError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
