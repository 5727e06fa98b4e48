import {
  DefaultFailureConverter,
  type PayloadConverter,
  type ProtoFailure,
  type SerializationContext,
} from '@temporalio/common';

/*
 * The failure converter of a process whose payloads are encrypted, loaded by path (Temporal's
 * `DataConverter.failureConverterPath`) so the worker bundles it into the workflow code too: a failure's message and
 * stack trace go into a payload the codec encrypts, and the history keeps only "Encoded failure" in clear. A failure
 * message may quote a tool's output or the model's answer; without this it would be readable in the history.
 * Reading needs nothing special: every default failure converter restores the message from that payload.
 *
 * One failure stays in clear: a workflow task that failed because a payload's key is missing (`PayloadKeyError`,
 * named here, not imported: this module is bundled into workflow code). Its message names a key id and nothing of
 * the run, and an operator must read it without the key it is about.
 */
class EncryptingFailureConverter extends DefaultFailureConverter {
  private readonly inClear = new DefaultFailureConverter();

  constructor() {
    super({ encodeCommonAttributes: true });
  }

  override errorToFailure(
    error: unknown,
    payloadConverter: PayloadConverter,
    context?: SerializationContext,
  ): ProtoFailure {
    if (error instanceof Error && error.name === 'PayloadKeyError')
      return this.inClear.errorToFailure(error, payloadConverter, context);
    return super.errorToFailure(error, payloadConverter, context);
  }
}

/** The failure converter Temporal loads from this module: messages and stack traces as payloads. */
export const failureConverter = new EncryptingFailureConverter();
