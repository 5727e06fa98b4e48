import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { AesGcmPayloadCodec } from './aes-gcm-codec';
import type { CodecKey } from './codec-keys';

/**
 * The module of the failure converter that moves failure messages and stack traces into payloads, so the codec
 * encrypts them too (`encoded-failure-converter.ts`). A workflow bundle built ahead of time
 * (`bundleWorkflowCode`) needs it as its `failureConverterPath` to encrypt the failures workflows raise.
 */
export const ENCODED_FAILURE_CONVERTER_PATH: string = require.resolve('./encoded-failure-converter');

/**
 * The data converter of a process whose payloads are encrypted with the runner's AES-256-GCM codec: give the
 * same keys (or the same codec) to the worker (`createAgentWorker({ dataConverter })`, `AgentRunnerPlugin`) and to
 * every client (`connectAgentClient(config, { dataConverter })`).
 *
 * - `keys`, primary first: the primary encrypts every new payload; the others only decrypt (key rotation). With
 *   keys, failure messages and stack traces are encrypted too ({@link ENCODED_FAILURE_CONVERTER_PATH}).
 * - No keys: payloads stay in clear, and an encrypted payload met on the way in fails with a `PayloadKeyError`
 *   that names its key id, instead of Temporal's "Unknown encoding".
 * - A codec of your own (any `PayloadCodec`) is used as given; failures are left as Temporal leaves them.
 */
export function payloadCodecDataConverter(keys: readonly CodecKey[] | PayloadCodec): DataConverter {
  if (!Array.isArray(keys)) return { payloadCodecs: [keys as PayloadCodec] };
  const codec = new AesGcmPayloadCodec(keys as readonly CodecKey[]);
  if (keys.length === 0) return { payloadCodecs: [codec] };
  return { payloadCodecs: [codec], failureConverterPath: ENCODED_FAILURE_CONVERTER_PATH };
}
