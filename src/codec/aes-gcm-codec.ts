import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { CodecKey } from './codec-keys';
import { PayloadKeyError } from './payload-key-error';

/** The metadata an encrypted payload carries: its encoding, the cipher and the id of the key that opens it. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
const CIPHER = 'AES-256-GCM';
const METADATA_ENCODING = 'encoding';
const METADATA_CIPHER = 'encryption-cipher';
const METADATA_KEY_ID = 'encryption-key-id';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const utf8 = new TextEncoder();
const text = new TextDecoder();

/**
 * Temporal's payload codec for AES-256-GCM: each payload is serialised whole and encrypted with the primary key under a
 * fresh 96-bit nonce, its key id in the metadata and the associated data, so older keys still decrypt and ids cannot
 * be swapped. Payloads in clear pass through, so runs from before encryption stay readable.
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly byId: ReadonlyMap<string, Buffer>;
  private readonly primary: CodecKey | undefined;

  /** @param keys the keys, primary first; none makes a codec that only refuses encrypted payloads, clearly */
  constructor(keys: readonly CodecKey[]) {
    this.byId = new Map(keys.map((key) => [key.id, key.key]));
    this.primary = keys[0];
  }

  /** The ids this codec holds, primary first. */
  get keyIds(): string[] {
    return [...this.byId.keys()];
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const primary = this.primary;
    if (primary === undefined) return payloads;
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', primary.key, iv);
      cipher.setAAD(utf8.encode(primary.id));
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: {
          [METADATA_ENCODING]: utf8.encode(ENCRYPTED_ENCODING),
          [METADATA_CIPHER]: utf8.encode(CIPHER),
          [METADATA_KEY_ID]: utf8.encode(primary.id),
        },
        data,
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.decodeOne(payload));
  }

  private decodeOne(payload: Payload): Payload {
    const encoding = payload.metadata?.[METADATA_ENCODING];
    if (encoding === undefined || text.decode(encoding) !== ENCRYPTED_ENCODING) return payload;
    const keyIdBytes = payload.metadata?.[METADATA_KEY_ID];
    const keyId = keyIdBytes === undefined ? '' : text.decode(keyIdBytes);
    const key = this.byId.get(keyId);
    if (key === undefined) {
      const held = this.keyIds;
      throw new PayloadKeyError(
        `A payload is encrypted with key "${keyId}", which this process does not hold ` +
          `(${held.length === 0 ? 'it holds no key: set AGENT_CODEC_KEYS or AGENT_CODEC_KEY_FILE' : `it holds ${held.map((id) => `"${id}"`).join(', ')}`}). ` +
          `Add key "${keyId}" to the process's codec keys; a run that needs it waits until a worker holding it picks it up.`,
        keyId,
      );
    }
    const data = payload.data ?? new Uint8Array();
    if (data.length < IV_BYTES + TAG_BYTES) {
      throw new PayloadKeyError(`A payload encrypted with key "${keyId}" is too short to be AES-256-GCM.`, keyId);
    }
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
    decipher.setAAD(utf8.encode(keyId));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new PayloadKeyError(
        `A payload marked with key "${keyId}" does not open with the key of that id: the key was changed, or the payload was altered.`,
        keyId,
      );
    }
    return temporal.api.common.v1.Payload.decode(plain);
  }
}
