import { randomBytes } from 'node:crypto';
import { loadCodecServerConfig } from '../../src/config/codec-server';

/** `agent-runner codec-server`'s environment: a token and keys required, the UI origins exact. */
describe('loadCodecServerConfig', () => {
  const keys = `k1=${randomBytes(32).toString('base64')}`;
  const token = 'codec-config-token-0123';

  test('defaults: 127.0.0.1:8888, the dev server UI under both local names', () => {
    const config = loadCodecServerConfig({ AGENT_CODEC_KEYS: keys, AGENT_CODEC_SERVER_TOKEN: token });
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8888,
      token,
      corsOrigins: ['http://localhost:8233', 'http://127.0.0.1:8233'],
    });
    expect(config.keys.map((key) => key.id)).toEqual(['k1']);
  });

  test('origins are trimmed of spaces and a trailing slash', () => {
    const config = loadCodecServerConfig({
      AGENT_CODEC_KEYS: keys,
      AGENT_CODEC_SERVER_TOKEN: token,
      AGENT_CODEC_CORS_ORIGINS: 'https://temporal.example.com/, http://localhost:8080',
    });
    expect(config.corsOrigins).toEqual(['https://temporal.example.com', 'http://localhost:8080']);
  });

  test('an origin with a path, a short token, or neither token nor keys: every problem named, no secret shown', () => {
    expect(() =>
      loadCodecServerConfig({ AGENT_CODEC_KEYS: keys, AGENT_CODEC_SERVER_TOKEN: token, AGENT_CODEC_CORS_ORIGINS: '*' }),
    ).toThrow(/AGENT_CODEC_CORS_ORIGINS[.0-9]*="\*": expected origins like http:\/\/localhost:8233/);
    expect(() => loadCodecServerConfig({ AGENT_CODEC_KEYS: keys, AGENT_CODEC_SERVER_TOKEN: 'short-secret' })).toThrow(
      /AGENT_CODEC_SERVER_TOKEN=\(hidden\): use at least 16 characters/,
    );
    let message = '';
    try {
      loadCodecServerConfig({});
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('AGENT_CODEC_SERVER_TOKEN');
    expect(message).toContain('AGENT_CODEC_KEYS or AGENT_CODEC_KEY_FILE');
  });
});
