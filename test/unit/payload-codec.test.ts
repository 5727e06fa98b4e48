import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter, type FailureConverter, type Payload } from '@temporalio/common';
import { AesGcmPayloadCodec, ENCRYPTED_ENCODING } from '../../src/codec/aes-gcm-codec';
import { PayloadKeyError } from '../../src/codec/payload-key-error';
import { parseCodecKeys, type CodecKey } from '../../src/codec/codec-keys';
import { CodecKeyError } from '../../src/codec/codec-key-error';
import { ENCODED_FAILURE_CONVERTER_PATH, payloadCodecDataConverter } from '../../src/codec/data-converter';
import { ConfigError } from '../../src/config';
import { describePayloadEncryption, loadCodecKeys, loadPayloadEncryption } from '../../src/config/payload-codec';

const key = (id: string): CodecKey => ({ id, key: randomBytes(32) });
const line = (codecKey: CodecKey) => `${codecKey.id}=${codecKey.key.toString('base64')}`;
const text = (payload: Payload, name: string) => new TextDecoder().decode(payload.metadata?.[name]);
const SECRET = 'the tool said: launch code 0451';

describe('codec keys', () => {
  test('id=base64 entries, by comma or line, comments and blank lines ignored, the first primary', () => {
    const [k1, k2] = [key('k1'), key('k.2_b-3')];
    const keys = parseCodecKeys(`# rotated on Monday\n${line(k1)}\n\n  ${line(k2)}  # old\n`, 'the file');
    expect(keys.map((entry) => entry.id)).toEqual(['k1', 'k.2_b-3']);
    expect(keys[0]?.key.equals(k1.key)).toBe(true);
    expect(parseCodecKeys(`${line(k1)},${line(k2)}`, 'AGENT_CODEC_KEYS').map((entry) => entry.id)).toEqual([
      'k1',
      'k.2_b-3',
    ]);
  });

  test('a bad entry is refused naming the entry and the key id, never the key material', () => {
    const short = Buffer.alloc(16, 7).toString('base64');
    const refusal = (input: string) => {
      try {
        parseCodecKeys(input, 'AGENT_CODEC_KEYS');
      } catch (error) {
        expect(error).toBeInstanceOf(CodecKeyError);
        return (error as Error).message;
      }
      throw new Error(`${input} was accepted`);
    };
    const shortMessage = refusal(`k1=${short}`);
    expect(shortMessage).toMatch(/entry 1 \(key id "k1"\): the key must be 32 bytes in base64/);
    expect(shortMessage).toContain('openssl rand -base64 32');
    expect(shortMessage).not.toContain(short);
    expect(refusal('no separator here')).toMatch(/entry 1: expected id=base64key/);
    expect(refusal(`bad id!=${key('x').key.toString('base64')}`)).toMatch(/entry 1: expected id=base64key/);
    expect(refusal(`${line(key('k1'))},${line(key('k1'))}`)).toMatch(/entry 2: key id "k1" appears twice/);
    expect(refusal(' # only a comment\n')).toMatch(/holds no key/);
    expect(refusal(`k1=${key('k1').key.toString('base64')}***`)).toMatch(/key id "k1"/);
  });

  test('the environment: AGENT_CODEC_KEYS or AGENT_CODEC_KEY_FILE, not both; neither is payloads in clear', async () => {
    const [k1, k2] = [key('k1'), key('k2')];
    expect(loadCodecKeys({})).toEqual([]);
    expect(loadCodecKeys({ AGENT_CODEC_KEYS: `${line(k2)},${line(k1)}` }).map((entry) => entry.id)).toEqual([
      'k2',
      'k1',
    ]);
    const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'codec-keys-')), 'keys');
    await writeFile(file, `${line(k1)}\n`);
    expect(loadCodecKeys({ AGENT_CODEC_KEY_FILE: file }).map((entry) => entry.id)).toEqual(['k1']);
    expect(() => loadCodecKeys({ AGENT_CODEC_KEY_FILE: file, AGENT_CODEC_KEYS: line(k1) })).toThrow(ConfigError);
    expect(() => loadCodecKeys({ AGENT_CODEC_KEY_FILE: `${file}.missing` })).toThrow(
      /Cannot read the codec key file .*keys\.missing: ENOENT/,
    );
    expect(() => loadCodecKeys({ AGENT_CODEC_KEYS: 'k1=short' })).toThrow(ConfigError);
  });

  test('what a process says at start about its payloads', () => {
    expect(describePayloadEncryption({ keyIds: [] })).toBe(
      'payloads in clear (no AGENT_CODEC_KEYS or AGENT_CODEC_KEY_FILE)',
    );
    expect(describePayloadEncryption({ keyIds: ['k2', 'k1'] })).toBe(
      'payloads encrypted (AES-256-GCM, key "k2"; also reads "k1")',
    );
    expect(loadPayloadEncryption({}).keyIds).toEqual([]);
  });
});

describe('AES-256-GCM payload codec', () => {
  const payload = defaultPayloadConverter.toPayload({ answer: SECRET });

  test('round trip: the encrypted payload names cipher and key id and holds none of the text', async () => {
    const codec = new AesGcmPayloadCodec([key('k1')]);
    const [encrypted] = await codec.encode([payload]);
    expect(text(encrypted!, 'encoding')).toBe(ENCRYPTED_ENCODING);
    expect(text(encrypted!, 'encryption-cipher')).toBe('AES-256-GCM');
    expect(text(encrypted!, 'encryption-key-id')).toBe('k1');
    expect(Buffer.from(encrypted!.data!).toString('latin1')).not.toContain('launch code');
    const [decoded] = await codec.decode([encrypted!]);
    expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual({ answer: SECRET });
    // A fresh nonce each time: the same payload never encrypts to the same bytes.
    const [again] = await codec.encode([payload]);
    expect(Buffer.from(again!.data!).equals(Buffer.from(encrypted!.data!))).toBe(false);
  });

  test('rotation: a new primary encrypts, an older listed key still decrypts', async () => {
    const [k1, k2] = [key('k1'), key('k2')];
    const [old] = await new AesGcmPayloadCodec([k1]).encode([payload]);
    const rotated = new AesGcmPayloadCodec([k2, k1]);
    expect(rotated.keyIds).toEqual(['k2', 'k1']);
    const [fresh] = await rotated.encode([payload]);
    expect(text(fresh!, 'encryption-key-id')).toBe('k2');
    const decoded = await rotated.decode([old!, fresh!]);
    expect(decoded.map((each) => defaultPayloadConverter.fromPayload(each))).toEqual([
      { answer: SECRET },
      { answer: SECRET },
    ]);
  });

  test('a missing key fails with PayloadKeyError naming the key id and the ids held', async () => {
    const [encrypted] = await new AesGcmPayloadCodec([key('k1')]).encode([payload]);
    const refusal = await new AesGcmPayloadCodec([key('k2')]).decode([encrypted!]).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(PayloadKeyError);
    expect(refusal).toMatchObject({ keyId: 'k1' });
    expect((refusal as Error).message).toMatch(
      /encrypted with key "k1", which this process does not hold \(it holds "k2"\)/,
    );
    const keyless = await new AesGcmPayloadCodec([]).decode([encrypted!]).catch((error: unknown) => error);
    expect((keyless as Error).message).toMatch(
      /key "k1".*it holds no key: set AGENT_CODEC_KEYS or AGENT_CODEC_KEY_FILE/,
    );
  });

  test('a wrong key of the same id, altered data or a swapped key id are refused, naming the key id', async () => {
    const k1 = key('k1');
    const [encrypted] = await new AesGcmPayloadCodec([k1]).encode([payload]);
    const wrongKey = await new AesGcmPayloadCodec([key('k1')]).decode([encrypted!]).catch((error: unknown) => error);
    expect(wrongKey).toBeInstanceOf(PayloadKeyError);
    expect((wrongKey as Error).message).toMatch(/marked with key "k1" does not open with the key of that id/);

    const altered = Buffer.from(encrypted!.data!);
    altered[20] = altered[20]! ^ 1;
    const tampered = await new AesGcmPayloadCodec([k1])
      .decode([{ ...encrypted!, data: altered }])
      .catch((error: unknown) => error);
    expect((tampered as Error).message).toMatch(/does not open/);

    // The id is the cipher's associated data: relabelling a payload with another held key's id does not open it.
    const other = { id: 'k2', key: k1.key };
    const relabelled = {
      ...encrypted!,
      metadata: { ...encrypted!.metadata, 'encryption-key-id': new TextEncoder().encode('k2') },
    };
    const swapped = await new AesGcmPayloadCodec([other, k1]).decode([relabelled]).catch((error: unknown) => error);
    expect((swapped as Error).message).toMatch(/marked with key "k2" does not open/);

    const truncated = await new AesGcmPayloadCodec([k1])
      .decode([{ ...encrypted!, data: encrypted!.data!.subarray(0, 10) }])
      .catch((error: unknown) => error);
    expect((truncated as Error).message).toMatch(/too short/);
  });

  test('plain payloads pass through: both ways without keys, on the way in with keys', async () => {
    const keyless = new AesGcmPayloadCodec([]);
    expect(await keyless.encode([payload])).toEqual([payload]);
    expect(await keyless.decode([payload])).toEqual([payload]);
    expect(await new AesGcmPayloadCodec([key('k1')]).decode([payload])).toEqual([payload]);
  });
});

describe('payloadCodecDataConverter', () => {
  test('with keys: the codec and the failure converter that encrypts failure messages', () => {
    const converter = payloadCodecDataConverter([key('k1')]);
    expect(converter.payloadCodecs?.[0]).toBeInstanceOf(AesGcmPayloadCodec);
    expect(converter.failureConverterPath).toBe(ENCODED_FAILURE_CONVERTER_PATH);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { failureConverter } = require(ENCODED_FAILURE_CONVERTER_PATH) as { failureConverter: FailureConverter };
    const encoded = failureConverter.errorToFailure(new Error(SECRET), defaultPayloadConverter);
    expect(encoded.message).toBe('Encoded failure');
    expect(encoded.stackTrace).toBe('');
    expect(JSON.stringify(defaultPayloadConverter.fromPayload(encoded.encodedAttributes!))).toContain(SECRET);
    // A missing key's failure names a key id only, and must be readable without that key.
    const missing = failureConverter.errorToFailure(
      new PayloadKeyError('key "k1" is missing', 'k1'),
      defaultPayloadConverter,
    );
    expect(missing.message).toBe('key "k1" is missing');
    expect(missing.encodedAttributes).toBeUndefined();
  });

  test('without keys: a keyless codec (a clear error for an encrypted payload), failures as Temporal leaves them', () => {
    const converter = payloadCodecDataConverter([]);
    expect((converter.payloadCodecs?.[0] as AesGcmPayloadCodec).keyIds).toEqual([]);
    expect(converter.failureConverterPath).toBeUndefined();
  });

  test('a codec of your own is used as given', () => {
    const own = { encode: async (payloads: Payload[]) => payloads, decode: async (payloads: Payload[]) => payloads };
    expect(payloadCodecDataConverter(own)).toEqual({ payloadCodecs: [own] });
  });
});
