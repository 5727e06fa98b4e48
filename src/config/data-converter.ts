import type { DataConverter } from '@temporalio/common';
import { RemotePayloadCodec } from '../codec/remote-codec';
import { loadPayloadCodec } from './payload-codec';
import { loadTemporalConfig, type TemporalConfig } from './temporal';

/** Which codec {@link loadDataConverter} chose, for a process's start line. */
export type PayloadCodecChoice =
  { kind: 'local-keys'; keyIds: string[] } | { kind: 'remote'; endpoint: string } | { kind: 'none' };

/**
 * The data converter of a process, from the environment: payloads encrypted with the process's own keys
 * (`AGENT_CODEC_KEYS` / `AGENT_CODEC_KEY_FILE`) when it holds any; else through the codec server of the Temporal
 * profile or `TEMPORAL_CODEC_ENDPOINT` (with `TEMPORAL_CODEC_AUTH`); else none (payloads in clear).
 * Local keys win over an endpoint: a process that holds the keys needs no server to read its own payloads.
 *
 * @param temporal the process's Temporal settings, when it loaded them already (they carry the endpoint)
 */
export function loadDataConverter(
  env: NodeJS.ProcessEnv = process.env,
  temporal: Pick<TemporalConfig, 'codec' | 'namespace'> = loadTemporalConfig(env),
): { dataConverter: DataConverter | undefined; codec: PayloadCodecChoice } {
  const local = loadPayloadCodec(env);
  if (local !== undefined) {
    return { dataConverter: { payloadCodecs: [local] }, codec: { kind: 'local-keys', keyIds: local.keyIds } };
  }
  if (temporal.codec !== undefined) {
    const remote = new RemotePayloadCodec({ ...temporal.codec, namespace: temporal.namespace });
    return { dataConverter: { payloadCodecs: [remote] }, codec: { kind: 'remote', endpoint: temporal.codec.endpoint } };
  }
  return { dataConverter: undefined, codec: { kind: 'none' } };
}
