import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A certificate and its key, as files and as their contents. */
export interface SelfSignedCert {
  certPath: string;
  keyPath: string;
  cert: Buffer;
  key: Buffer;
}

/**
 * A fresh self-signed certificate for `localhost` and 127.0.0.1 (a P-256 key, valid one day), made by the
 * machine's `openssl req -x509`, in a temporary directory of its own. A missing openssl fails the test.
 */
export function selfSignedCert(commonName = 'localhost'): SelfSignedCert {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'stream-tls-'));
  const certPath = path.join(directory, 'cert.pem');
  const keyPath = path.join(directory, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '1',
      '-subj',
      `/CN=${commonName}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'pipe' },
  );
  return { certPath, keyPath, cert: readFileSync(certPath), key: readFileSync(keyPath) };
}
