import { readFileSync } from 'node:fs';
import { CodecKeyError } from './codec-key-error';

/**
 * The keys a payload codec encrypts and decrypts with. Each has an id, written in the metadata of every payload it
 * encrypts, so a payload names the key that opens it; the first key is the primary one, used for every new payload.
 * Older keys stay in the list for as long as runs encrypted with them may be read: that is key rotation.
 */
export interface CodecKey {
  /** Short and stable: letters, digits, `.`, `_`, `-` (at most 64). Never the key itself. */
  id: string;
  /** 32 bytes: AES-256. */
  key: Buffer;
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const KEY_BYTES = 32;

/**
 * Parses `id=base64key` entries separated by commas or newlines (blank lines and `#` comments ignored), first
 * entry primary: the format of `AGENT_CODEC_KEYS` and of the file named by `AGENT_CODEC_KEY_FILE`.
 * `source` names where the text came from, for the error.
 */
export function parseCodecKeys(text: string, source: string): CodecKey[] {
  const entries = text
    .split(/[,\n]/)
    .map((entry) => entry.replace(/#.*$/, '').trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new CodecKeyError(`${source} holds no key: expected id=base64key entries.`);
  const keys: CodecKey[] = [];
  entries.forEach((entry, index) => {
    const separator = entry.indexOf('=');
    const id = separator < 0 ? '' : entry.slice(0, separator).trim();
    const encoded = separator < 0 ? '' : entry.slice(separator + 1).trim();
    const where = `${source}, entry ${index + 1}`;
    if (!KEY_ID.test(id)) {
      throw new CodecKeyError(
        `${where}: expected id=base64key with an id of letters, digits, '.', '_' or '-' (at most 64).`,
      );
    }
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== KEY_BYTES || key.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '')) {
      throw new CodecKeyError(
        `${where} (key id "${id}"): the key must be ${KEY_BYTES} bytes in base64 ` +
          '(make one with `openssl rand -base64 32`).',
      );
    }
    if (keys.some((known) => known.id === id)) throw new CodecKeyError(`${where}: key id "${id}" appears twice.`);
    keys.push({ id, key });
  });
  return keys;
}

/** Reads a key file (the format of {@link parseCodecKeys}). */
export function readCodecKeyFile(file: string): CodecKey[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CodecKeyError(
      `Cannot read the codec key file ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`,
    );
  }
  return parseCodecKeys(text, file);
}
