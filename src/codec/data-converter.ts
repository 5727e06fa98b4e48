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
 * The data converter for the runner's AES-256-GCM codec; give the worker and every client the same keys. `keys`,
 * primary first (the others only decrypt), also encrypt failure messages ({@link ENCODED_FAILURE_CONVERTER_PATH});
 * no keys leave payloads in clear but name the key of an encrypted one (`PayloadKeyError`); a `PayloadCodec` of your
 * own is used as given, failures left as Temporal leaves them.
 */
export function payloadCodecDataConverter(keys: readonly CodecKey[] | PayloadCodec): DataConverter {
  if (!Array.isArray(keys)) return { payloadCodecs: [keys as PayloadCodec] };
  const codec = new AesGcmPayloadCodec(keys as readonly CodecKey[]);
  if (keys.length === 0) return { payloadCodecs: [codec] };
  return { payloadCodecs: [codec], failureConverterPath: ENCODED_FAILURE_CONVERTER_PATH };
}
