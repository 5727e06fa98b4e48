import { DefaultFailureConverter } from '@temporalio/common';

/*
 * The failure converter of a process whose payloads are encrypted, loaded by path (Temporal's
 * `DataConverter.failureConverterPath`) so the worker bundles it into the workflow code too: a failure's message and
 * stack trace go into a payload the codec encrypts, and the history keeps only "Encoded failure" in clear. A failure
 * message may quote a tool's output or the model's answer; without this it would be readable in the history.
 * Reading needs nothing special: every default failure converter restores the message from that payload.
 */

/** The failure converter Temporal loads from this module: messages and stack traces as payloads. */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
