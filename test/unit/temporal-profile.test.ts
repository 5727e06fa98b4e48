import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AesGcmPayloadCodec } from '../../src/codec/aes-gcm-codec';
import { RemotePayloadCodec } from '../../src/codec/remote-codec';
import { ConfigError, configuredSecrets, loadTemporalConfig } from '../../src/config';
import { loadPayloadEncryption } from '../../src/config/payload-codec';
import { loadLocalServerConfig } from '../../src/config/local-server';
import { defaultTemporalConfigFile, describeTemporalSource } from '../../src/config/temporal';
import { connectionOptions } from '../../src/temporal/connection';

/**
 * The Temporal connection from an envconfig profile: which file and profile are read, what the environment
 * overrides, the aliases kept from earlier versions and which name wins, and the errors for a profile or file that
 * is not there. The TOML is real files in a temp dir; envconfig reads them.
 */

const directory = mkdtempSync(path.join(os.tmpdir(), 'temporal-profile-'));
const CERT = writeTemp('client.pem', '-----BEGIN CERTIFICATE-----\nY2VydA==\n-----END CERTIFICATE-----\n');
const KEY = writeTemp('client.key', '-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleS1ib2R5\n-----END PRIVATE KEY-----\n');
const CA = writeTemp('ca.pem', '-----BEGIN CERTIFICATE-----\nY2E=\n-----END CERTIFICATE-----\n');

const FILE = writeTemp(
  'temporal.toml',
  `[profile.default]
address = "default.example:7233"
namespace = "default-ns"

[profile.prod]
address = "prod.example:7233"
namespace = "prod-ns"
api_key = "profile-api-key"

[profile.prod.tls]
server_name = "prod.internal"
server_ca_cert_path = "${CA}"
client_cert_path = "${CERT}"
client_key_path = "${KEY}"

[profile.prod.grpc_meta]
tenant-id = "t1"

[profile.prod.codec]
endpoint = "https://codec.example/prod/"
auth = "Bearer profile-codec-token"

[profile.bad-address]
address = "no-port"

[profile.half-mtls.tls]
client_cert_path = "${CERT}"
`,
);

function writeTemp(name: string, text: string): string {
  const file = path.join(directory, name);
  writeFileSync(file, text);
  return file;
}

function configErrorOf(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('a profile file', () => {
  test('TEMPORAL_CONFIG_FILE without TEMPORAL_PROFILE reads the default profile', () => {
    const config = loadTemporalConfig({ TEMPORAL_CONFIG_FILE: FILE });

    expect(config).toEqual({
      address: 'default.example:7233',
      namespace: 'default-ns',
      taskQueue: 'agent-runner',
      source: { file: FILE, profile: 'default' },
    });
    expect(describeTemporalSource(config)).toBe(`profile "default" of ${FILE}`);
  });

  test('TEMPORAL_PROFILE picks a profile: address, namespace, API key, TLS, gRPC metadata and codec', () => {
    expect(loadTemporalConfig({ TEMPORAL_CONFIG_FILE: FILE, TEMPORAL_PROFILE: 'prod' })).toEqual({
      address: 'prod.example:7233',
      namespace: 'prod-ns',
      taskQueue: 'agent-runner',
      apiKey: 'profile-api-key',
      tls: {
        serverName: 'prod.internal',
        serverCACert: { path: CA },
        clientCert: { path: CERT },
        clientKey: { path: KEY },
      },
      grpcMetadata: { 'tenant-id': 't1' },
      codec: { endpoint: 'https://codec.example/prod', auth: 'Bearer profile-codec-token' },
      source: { file: FILE, profile: 'prod' },
    });
  });

  test('the connection options carry the files it names, read, and the API key', () => {
    const options = connectionOptions(loadTemporalConfig({ TEMPORAL_CONFIG_FILE: FILE, TEMPORAL_PROFILE: 'prod' }));

    expect(options.address).toBe('prod.example:7233');
    expect(options.apiKey).toBe('profile-api-key');
    expect(options.metadata).toEqual({ 'tenant-id': 't1' });
    expect(options.tls).toMatchObject({ serverNameOverride: 'prod.internal' });
    const tls = options.tls as {
      clientCertPair: { crt: Uint8Array; key: Uint8Array };
      serverRootCACertificate: Uint8Array;
    };
    expect(Buffer.from(tls.clientCertPair.key).toString()).toContain('c2VjcmV0LWtleS1ib2R5');
    expect(Buffer.from(tls.serverRootCACertificate).toString()).toContain('Y2E=');
  });

  test('a TLS file that cannot be read fails the connection options with its path and the profile', () => {
    const config = loadTemporalConfig({
      TEMPORAL_CONFIG_FILE: FILE,
      TEMPORAL_PROFILE: 'prod',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: path.join(directory, 'no-ca.pem'),
    });

    expect(() => connectionOptions(config)).toThrow(
      `Cannot read the TLS files of the Temporal connection (profile "prod" of ${FILE}): ENOENT: no such file or directory, open '${path.join(directory, 'no-ca.pem')}'`,
    );
  });

  test('the environment wins over the profile, field by field', () => {
    const config = loadTemporalConfig({
      TEMPORAL_CONFIG_FILE: FILE,
      TEMPORAL_PROFILE: 'prod',
      TEMPORAL_ADDRESS: 'override.example:443',
      TEMPORAL_NAMESPACE: 'override-ns',
      TEMPORAL_API_KEY: 'env-api-key',
      TEMPORAL_TLS_SERVER_NAME: 'env.internal',
      TEMPORAL_GRPC_META_TENANT_ID: '',
      TEMPORAL_GRPC_META_REGION: 'eu',
      TEMPORAL_CODEC_ENDPOINT: 'http://localhost:8081',
    });

    expect(config).toMatchObject({
      address: 'override.example:443',
      namespace: 'override-ns',
      apiKey: 'env-api-key',
      tls: { serverName: 'env.internal', clientCert: { path: CERT } },
      grpcMetadata: { region: 'eu' },
      // The endpoint from the environment, the auth still the profile's.
      codec: { endpoint: 'http://localhost:8081', auth: 'Bearer profile-codec-token' },
    });
  });

  test('TEMPORAL_TLS=false turns the profile TLS off; an API key alone turns it on', () => {
    const off = loadTemporalConfig({ TEMPORAL_CONFIG_FILE: FILE, TEMPORAL_PROFILE: 'prod', TEMPORAL_TLS: 'false' });
    expect(connectionOptions(off).tls).toBe(false);

    expect(connectionOptions(loadTemporalConfig({ TEMPORAL_API_KEY: 'k' })).tls).toBe(true);
    expect(connectionOptions(loadTemporalConfig({})).tls).toBeUndefined();
  });

  test('an unknown profile is an error naming it, the file and the profiles there are', () => {
    const error = configErrorOf(() => loadTemporalConfig({ TEMPORAL_CONFIG_FILE: FILE, TEMPORAL_PROFILE: 'staging' }));

    expect(error.message).toBe(
      `The Temporal config file ${FILE} has no profile "staging" (TEMPORAL_PROFILE); its profiles: ` +
        '"default", "prod", "bad-address", "half-mtls".',
    );
  });

  test('TEMPORAL_PROFILE with no config file is an error that says where it looked', () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'empty-home-'));
    const error = configErrorOf(() => loadTemporalConfig({ HOME: home, TEMPORAL_PROFILE: 'prod' }));

    expect(error.message).toContain('TEMPORAL_PROFILE="prod" names a profile, but there is no config file');
    expect(error.message).toContain(path.join(home, '.config', 'temporalio', 'temporal.toml'));
  });

  test('a TEMPORAL_CONFIG_FILE that does not exist is an error naming it', () => {
    const missing = path.join(directory, 'missing.toml');

    expect(configErrorOf(() => loadTemporalConfig({ TEMPORAL_CONFIG_FILE: missing })).message).toMatch(
      new RegExp(`^Cannot read the Temporal config file ${missing} \\(TEMPORAL_CONFIG_FILE\\): ENOENT: no such file`),
    );
  });

  test('a file that is not TOML is an error naming the file', () => {
    const broken = writeTemp('broken.toml', '[profile.default\naddress = 1');

    expect(configErrorOf(() => loadTemporalConfig({ TEMPORAL_CONFIG_FILE: broken })).message).toMatch(
      new RegExp(`^Cannot use the Temporal config file ${broken}: `),
    );
  });

  test("a profile's bad address is an error naming the profile", () => {
    expect(
      configErrorOf(() => loadTemporalConfig({ TEMPORAL_CONFIG_FILE: FILE, TEMPORAL_PROFILE: 'bad-address' })).message,
    ).toBe(`The address "no-port" of profile "bad-address" of ${FILE} is not host:port (for example localhost:7233).`);
  });

  test('a client certificate without its key is an error, wherever the two come from', () => {
    expect(
      configErrorOf(() => loadTemporalConfig({ TEMPORAL_CONFIG_FILE: FILE, TEMPORAL_PROFILE: 'half-mtls' })).message,
    ).toMatch(/^The TLS settings of profile "half-mtls" of .* have a client certificate but no key/);
    // The key from the environment completes the profile's certificate.
    expect(
      loadTemporalConfig({
        TEMPORAL_CONFIG_FILE: FILE,
        TEMPORAL_PROFILE: 'half-mtls',
        TEMPORAL_TLS_CLIENT_KEY_PATH: KEY,
      }).tls,
    ).toEqual({ clientCert: { path: CERT }, clientKey: { path: KEY } });
  });

  test('without TEMPORAL_CONFIG_FILE, the user config directory file is read when it exists', () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'home-'));
    mkdirSync(path.join(home, '.config', 'temporalio'), { recursive: true });
    writeFileSync(
      path.join(home, '.config', 'temporalio', 'temporal.toml'),
      '[profile.default]\naddress = "home:7233"\n',
    );

    expect(loadTemporalConfig({ HOME: home }).address).toBe('home:7233');
    expect(loadTemporalConfig({ HOME: path.join(home, 'nothing-here') })).toEqual({
      address: 'localhost:7233',
      namespace: 'default',
      taskQueue: 'agent-runner',
    });
  });

  test('the default file path follows XDG_CONFIG_HOME, then HOME, per platform', () => {
    expect(defaultTemporalConfigFile({ HOME: '/home/a' }, 'linux')).toBe('/home/a/.config/temporalio/temporal.toml');
    expect(defaultTemporalConfigFile({ HOME: '/home/a', XDG_CONFIG_HOME: '/xdg' }, 'linux')).toBe(
      '/xdg/temporalio/temporal.toml',
    );
    expect(defaultTemporalConfigFile({ HOME: '/Users/a' }, 'darwin')).toBe(
      '/Users/a/Library/Application Support/temporalio/temporal.toml',
    );
    expect(defaultTemporalConfigFile({}, 'linux')).toBeUndefined();
  });
});

describe('npm start, the demo and npm run server', () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'home-'));
  mkdirSync(path.join(home, '.config', 'temporalio'), { recursive: true });
  writeFileSync(
    path.join(home, '.config', 'temporalio', 'temporal.toml'),
    '[profile.default]\naddress = "cloud.example:7233"\napi_key = "cloud-key"\n',
  );

  test("ignore the user's default config file alone: they start their own dev server", () => {
    expect(loadLocalServerConfig({ HOME: home })).toEqual({});
  });

  test('use a profile someone names, with its TLS and key', () => {
    expect(loadLocalServerConfig({ HOME: home, TEMPORAL_PROFILE: 'default' })).toMatchObject({
      address: 'cloud.example:7233',
      temporal: { apiKey: 'cloud-key', source: { profile: 'default' } },
    });
    expect(loadLocalServerConfig({ TEMPORAL_CONFIG_FILE: FILE, TEMPORAL_PROFILE: 'prod' })).toMatchObject({
      address: 'prod.example:7233',
      temporal: { namespace: 'prod-ns', source: { file: FILE, profile: 'prod' } },
    });
  });

  test('with TEMPORAL_ADDRESS alone, read the other TEMPORAL_* variables but no file', () => {
    expect(loadLocalServerConfig({ HOME: home, TEMPORAL_ADDRESS: 'other:7233', TEMPORAL_API_KEY: 'k' })).toEqual({
      address: 'other:7233',
      temporal: { address: 'other:7233', namespace: 'default', taskQueue: 'agent-runner', apiKey: 'k' },
    });
  });
});

describe('the aliases TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY', () => {
  test('stand for TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH', () => {
    expect(loadTemporalConfig({ TEMPORAL_TLS_CERT: CERT, TEMPORAL_TLS_KEY: KEY }).tls).toEqual({
      clientCert: { path: CERT },
      clientKey: { path: KEY },
    });
  });

  test("envconfig's own names win when both are set", () => {
    const other = writeTemp('other.pem', 'other');

    expect(
      loadTemporalConfig({
        TEMPORAL_TLS_CERT: CERT,
        TEMPORAL_TLS_KEY: KEY,
        TEMPORAL_TLS_CLIENT_CERT_PATH: other,
      }).tls,
    ).toEqual({ clientCert: { path: other }, clientKey: { path: KEY } });
  });

  test("win over the profile's files, as every variable does", () => {
    const other = writeTemp('other.key', 'other');

    expect(
      loadTemporalConfig({
        TEMPORAL_CONFIG_FILE: FILE,
        TEMPORAL_PROFILE: 'prod',
        TEMPORAL_TLS_CERT: CERT,
        TEMPORAL_TLS_KEY: other,
      }).tls,
    ).toMatchObject({ clientCert: { path: CERT }, clientKey: { path: other } });
  });

  test('are still a pair', () => {
    expect(() => loadTemporalConfig({ TEMPORAL_TLS_CERT: CERT })).toThrow(
      new ConfigError('Set both TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY for mTLS, or neither.'),
    );
  });
});

describe('secrets of a profile', () => {
  test('the profile API key, codec auth and TLS key are redacted', () => {
    const secrets = configuredSecrets({ TEMPORAL_CONFIG_FILE: FILE, TEMPORAL_PROFILE: 'prod' });

    expect(secrets).toEqual(
      expect.arrayContaining(['profile-api-key', 'Bearer profile-codec-token', 'c2VjcmV0LWtleS1ib2R5']),
    );
  });

  test('a bad TEMPORAL_CODEC_ENDPOINT is an error quoting it', () => {
    const error = configErrorOf(() => loadTemporalConfig({ TEMPORAL_CODEC_ENDPOINT: 'not a url' }));

    expect(error.message).toContain('TEMPORAL_CODEC_ENDPOINT="not a url": expected an http(s) URL');
  });
});

describe('loadPayloadEncryption', () => {
  const keys = `k1=${randomBytes(32).toString('base64')}`;

  test('local keys win over a codec endpoint', () => {
    const { dataConverter, keyIds, remoteEndpoint } = loadPayloadEncryption({
      AGENT_CODEC_KEYS: keys,
      TEMPORAL_CODEC_ENDPOINT: 'http://x:1',
    });

    expect(keyIds).toEqual(['k1']);
    expect(remoteEndpoint).toBeUndefined();
    expect(dataConverter.payloadCodecs?.[0]).toBeInstanceOf(AesGcmPayloadCodec);
  });

  test('without keys, the profile or TEMPORAL_CODEC_ENDPOINT gives a remote codec', () => {
    const fromProfile = loadPayloadEncryption({ TEMPORAL_CONFIG_FILE: FILE, TEMPORAL_PROFILE: 'prod' });
    expect(fromProfile.remoteEndpoint).toBe('https://codec.example/prod');
    expect(fromProfile.dataConverter.payloadCodecs?.[0]).toBeInstanceOf(RemotePayloadCodec);

    expect(loadPayloadEncryption({ TEMPORAL_CODEC_ENDPOINT: 'http://codec:8081' }).remoteEndpoint).toBe(
      'http://codec:8081',
    );
  });

  test('neither: a keyless codec, payloads in clear', () => {
    const none = loadPayloadEncryption({});
    expect(none.keyIds).toEqual([]);
    expect(none.remoteEndpoint).toBeUndefined();
    expect(none.dataConverter.payloadCodecs?.[0]).toBeInstanceOf(AesGcmPayloadCodec);
  });
});
