import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.SearchAttributesMissingError');

/**
 * The namespace lacks search attributes that every agent run sets (`AgentStatus`, `AgentIterations`, ...). On such a
 * namespace a run never gets going: each of its workflow tasks fails (`BadSearchAttributes` in the worker's log) and
 * is retried forever. The message carries the one command that registers them; `registerSearchAttributes` from
 * `agent-runner` does the same from code.
 */
export class SearchAttributesMissingError extends AgentRunnerError {
  override readonly name = 'SearchAttributesMissingError';

  private get [marker](): true {
    return true;
  }

  /** The namespace that lacks them. */
  readonly namespace: string;
  /** The attributes it lacks. */
  readonly missing: readonly string[];
  /** The `temporal operator search-attribute create ...` command that registers them. */
  readonly command: string;

  constructor(fields: { namespace: string; missing: readonly string[]; command: string; cause?: unknown }) {
    super(
      `The Temporal namespace "${fields.namespace}" lacks the search attributes ${fields.missing.join(', ')}, which every agent run sets: ` +
        `its runs would stall, each workflow task failing on them. Register them once: ${fields.command} ` +
        `(or call registerSearchAttributes(connection, '${fields.namespace}') from agent-runner).`,
      fields.cause === undefined ? undefined : { cause: fields.cause },
    );
    this.namespace = fields.namespace;
    this.missing = fields.missing;
    this.command = fields.command;
  }

  static override isInstance(error: unknown): error is SearchAttributesMissingError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
