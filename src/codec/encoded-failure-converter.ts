import {
  DefaultFailureConverter,
  type PayloadConverter,
  type ProtoFailure,
  type SerializationContext,
} from '@temporalio/common';

/*
 * The failure converter of an encrypting process, loaded by path so workflow code gets it too: a failure's message
 * and stack go into an encrypted payload, since they may quote a tool's output. A `PayloadKeyError` stays in clear
 * (named, not imported: this module is bundled): it names only a key id, and an operator must read it without that key.
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
