import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ConfigError,
  configuredSecrets,
  loadLogLevel,
  loadModelConfig,
  loadTemporalConfig,
  loadWorkerConfig,
} from '../../src/config';
import { loadLocalRunConfig, loadLocalServerConfig } from '../../src/config/local-server';
import { loadModelStreamConfig } from '../../src/config/model-stream';
import { loadClientTaskQueue } from '../../src/config/temporal';
import { loadTemporalCliConfig } from '../../src/config/temporal-cli';

const NO_MODEL_MESSAGE =
  'No model is configured: set OPENAI_API_KEY for OpenAI, or OPENAI_BASE_URL for an OpenAI-compatible server ' +
  '(for example OPENAI_BASE_URL=http://localhost:11434/v1 for Ollama); or AGENT_OFFLINE=1 for the bundled scripted model (no key, not an LLM).';
const TLS_MESSAGE = 'Set both TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY for mTLS, or neither.';

/** The error `load` throws, failing the test when it returns. */
function configErrorOf(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadTemporalConfig', () => {
  test('an empty environment gives the defaults', () => {
    expect(loadTemporalConfig({})).toEqual({
      address: 'localhost:7233',
      namespace: 'default',
      taskQueue: 'agent-runner',
    });
  });

  test('empty strings count as unset', () => {
    const env = {
      TEMPORAL_ADDRESS: '',
      TEMPORAL_NAMESPACE: '',
      AGENT_TASK_QUEUE: '',
      TEMPORAL_API_KEY: '',
      TEMPORAL_TLS_CERT: '',
      TEMPORAL_TLS_KEY: '',
    };

    expect(loadTemporalConfig(env)).toEqual({
      address: 'localhost:7233',
      namespace: 'default',
      taskQueue: 'agent-runner',
    });
  });

  test('reads every variable that is set', () => {
    const env = {
      TEMPORAL_ADDRESS: 'temporal.internal:443',
      TEMPORAL_NAMESPACE: 'agents',
      AGENT_TASK_QUEUE: 'agents-q',
      TEMPORAL_API_KEY: 'secret-key',
      TEMPORAL_TLS_CERT: '/certs/client.pem',
      TEMPORAL_TLS_KEY: '/certs/client.key',
    };

    expect(loadTemporalConfig(env)).toEqual({
      address: 'temporal.internal:443',
      namespace: 'agents',
      taskQueue: 'agents-q',
      apiKey: 'secret-key',
      tls: { clientCert: { path: '/certs/client.pem' }, clientKey: { path: '/certs/client.key' } },
    });
  });

  test('ignores variables it does not know', () => {
    expect(loadTemporalConfig({ PATH: '/usr/bin', OPENAI_MODEL: 'x' })).toEqual({
      address: 'localhost:7233',
      namespace: 'default',
      taskQueue: 'agent-runner',
    });
  });

  test.each(['localhost', 'http://localhost:7233', 'localhost:port', 'local host:7233', 'localhost:123456'])(
    'rejects the address %j, quoting it',
    (address) => {
      const error = configErrorOf(() => loadTemporalConfig({ TEMPORAL_ADDRESS: address }));

      expect(error.name).toBe('ConfigError');
      expect(error.message).toBe(
        `Bad configuration: TEMPORAL_ADDRESS=${JSON.stringify(address)}: expected host:port, for example localhost:7233`,
      );
    },
  );

  test('a TLS certificate without a key is rejected', () => {
    expect(() => loadTemporalConfig({ TEMPORAL_TLS_CERT: '/certs/client.pem' })).toThrow(new ConfigError(TLS_MESSAGE));
  });

  test('a TLS key without a certificate is rejected', () => {
    expect(() => loadTemporalConfig({ TEMPORAL_TLS_KEY: '/certs/client.key' })).toThrow(new ConfigError(TLS_MESSAGE));
  });

  test('a TLS certificate with an empty key is rejected', () => {
    expect(() => loadTemporalConfig({ TEMPORAL_TLS_CERT: '/certs/client.pem', TEMPORAL_TLS_KEY: '' })).toThrow(
      new ConfigError(TLS_MESSAGE),
    );
  });
});

describe('loadModelConfig', () => {
  test('neither an API key nor a base URL gives the setup message', () => {
    expect(() => loadModelConfig({})).toThrow(new ConfigError(NO_MODEL_MESSAGE));
  });

  test('empty API key and base URL count as unset', () => {
    expect(() => loadModelConfig({ OPENAI_API_KEY: '', OPENAI_BASE_URL: '' })).toThrow(
      new ConfigError(NO_MODEL_MESSAGE),
    );
  });

  test('an API key alone is enough, with the default model and workspace', () => {
    expect(loadModelConfig({ OPENAI_API_KEY: 'sk-test' })).toEqual({
      apiKey: 'sk-test',
      defaultModel: 'gpt-4o-mini',
      workspace: path.resolve('./workspace'),
    });
  });

  test('a base URL alone is enough', () => {
    expect(loadModelConfig({ OPENAI_BASE_URL: 'http://localhost:11434/v1' })).toEqual({
      baseURL: 'http://localhost:11434/v1',
      defaultModel: 'gpt-4o-mini',
      workspace: path.resolve('./workspace'),
    });
  });

  test('reads the model and resolves the workspace to an absolute path', () => {
    const config = loadModelConfig({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_MODEL: 'llama3.2',
      AGENT_WORKSPACE: 'data/files',
    });

    expect(config.defaultModel).toBe('llama3.2');
    expect(config.workspace).toBe(path.resolve('data/files'));
    expect(path.isAbsolute(config.workspace)).toBe(true);
  });

  test('a bad base URL is reported before the missing-model check, quoting the value', () => {
    expect(() => loadModelConfig({ OPENAI_BASE_URL: 'not a url' })).toThrow(
      new ConfigError(
        'Bad configuration: OPENAI_BASE_URL="not a url": expected an http(s) URL, for example http://localhost:11434/v1',
      ),
    );
  });
});

describe('loadWorkerConfig', () => {
  test('returns every setting when all are fine', () => {
    expect(loadWorkerConfig({ OPENAI_API_KEY: 'sk-test', TEMPORAL_NAMESPACE: 'agents', LOG_LEVEL: 'debug' })).toEqual({
      temporal: { address: 'localhost:7233', namespace: 'agents', taskQueue: 'agent-runner' },
      model: { apiKey: 'sk-test', defaultModel: 'gpt-4o-mini', workspace: path.resolve('./workspace') },
      logLevel: 'DEBUG',
      mcpServers: {},
    });
  });

  test('reports the problems of both configurations at once, one per line', () => {
    expect(() => loadWorkerConfig({ TEMPORAL_ADDRESS: 'nope' })).toThrow(
      new ConfigError(
        'Bad configuration: TEMPORAL_ADDRESS="nope": expected host:port, for example localhost:7233\n' +
          NO_MODEL_MESSAGE,
      ),
    );
  });

  test('reports a Temporal problem alone when the model is fine', () => {
    expect(() => loadWorkerConfig({ TEMPORAL_TLS_KEY: '/certs/client.key', OPENAI_API_KEY: 'sk-test' })).toThrow(
      new ConfigError(TLS_MESSAGE),
    );
  });

  test('reports a model problem alone when Temporal is fine', () => {
    const error = configErrorOf(() => loadWorkerConfig({}));

    expect(error.message).toBe(NO_MODEL_MESSAGE);
  });
});

describe('address and URL edges', () => {
  test('a base URL without an http(s) scheme is rejected', () => {
    expect(() => loadModelConfig({ OPENAI_BASE_URL: 'localhost:11434/v1' })).toThrow(ConfigError);
    expect(() => loadModelConfig({ OPENAI_BASE_URL: 'ftp://example.com/v1' })).toThrow(/expected an http\(s\) URL/);
  });

  test('a port above 65535 is rejected', () => {
    expect(() => loadTemporalConfig({ TEMPORAL_ADDRESS: 'localhost:99999' })).toThrow('the port must be at most 65535');
  });

  test('an IPv6 address in brackets is accepted', () => {
    expect(loadTemporalConfig({ TEMPORAL_ADDRESS: '[::1]:7233' }).address).toBe('[::1]:7233');
  });
});

describe('loadLogLevel', () => {
  test('defaults to INFO and accepts any case', () => {
    expect(loadLogLevel({})).toBe('INFO');
    expect(loadLogLevel({ LOG_LEVEL: 'warn' })).toBe('WARN');
  });

  test('an unknown level is named', () => {
    expect(() => loadLogLevel({ LOG_LEVEL: 'verbose' })).toThrow(
      'LOG_LEVEL="verbose": expected trace, debug, info, warn or error',
    );
  });
});

describe('credentials in OPENAI_BASE_URL', () => {
  test('a base URL with user:password@ is refused at start, naming the variable and not printing them', () => {
    const error = configErrorOf(() =>
      loadModelConfig({ OPENAI_BASE_URL: 'https://alice:pass-w0rd-secret@llm.internal/v1' }),
    );

    expect(error.message).toBe(
      'OPENAI_BASE_URL="https://***@llm.internal/v1" has credentials in it (user:password@), which the HTTP client refuses ' +
        'to send and which would be printed wherever the URL is shown. Remove them from the URL; the provider key goes in ' +
        'OPENAI_API_KEY, which is sent as a bearer token.',
    );
    expect(error.message).not.toContain('pass-w0rd-secret');
    expect(error.message).not.toContain('alice');
  });

  test('a user name alone is refused too', () => {
    expect(() => loadModelConfig({ OPENAI_BASE_URL: 'https://sk-key-as-user@llm.internal/v1' })).toThrow(
      'OPENAI_BASE_URL="https://***@llm.internal/v1"',
    );
  });

  test('loadWorkerConfig reports it along with the other problems', () => {
    const error = configErrorOf(() =>
      loadWorkerConfig({
        TEMPORAL_ADDRESS: 'nope',
        OPENAI_BASE_URL: 'http://admin:hunter2-hunter2@localhost:11434/v1',
      }),
    );

    expect(error.message).toContain('TEMPORAL_ADDRESS="nope": expected host:port');
    expect(error.message).toContain('OPENAI_BASE_URL="http://***@localhost:11434/v1" has credentials in it');
    expect(error.message).not.toContain('hunter2');
  });

  test('an invalid URL is shown with its credentials masked', () => {
    const error = configErrorOf(() =>
      loadWorkerConfig({
        OPENAI_BASE_URL: 'ftp://admin:hunter2-hunter2@files.internal/v1',
        TEMPORAL_ADDRESS: 'http://u:topsecret-1@x:7233',
      }),
    );

    expect(error.message).toContain('OPENAI_BASE_URL="ftp://***@files.internal/v1": expected an http(s) URL');
    expect(error.message).toContain('TEMPORAL_ADDRESS="http://***@x:7233": expected host:port');
    expect(error.message).not.toMatch(/hunter2|topsecret/);
  });
});

describe('configuredSecrets', () => {
  test('collects the keys and tokens that are set, and credentials in OPENAI_BASE_URL', () => {
    expect(
      configuredSecrets({
        OPENAI_API_KEY: 'sk-openai',
        AGENT_API_TOKEN: 'api-token',
        AGENT_CODEC_SERVER_TOKEN: 'codec-server-token',
        TEMPORAL_API_KEY: 'temporal-key',
        OPENAI_BASE_URL: 'https://bob:p%40ss@host/v1',
        OPENAI_MODEL: 'not-a-secret',
      }),
    ).toEqual(['sk-openai', 'api-token', 'codec-server-token', 'temporal-key', 'bob', 'p%40ss', 'p@ss']);
    expect(configuredSecrets({ AGENT_API_TOKEN: '' })).toEqual([]);
  });

  test('reads the TLS key file: the whole of it and each line, without the BEGIN/END lines', () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), 'tls-key-'));
    const keyPath = path.join(directory, 'client.key');
    const pem =
      '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n';
    writeFileSync(keyPath, pem);

    const secrets = configuredSecrets({ TEMPORAL_TLS_KEY: keyPath, TEMPORAL_TLS_CERT: '/certs/client.pem' });

    expect(secrets).toEqual([pem, pem.trim(), 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 'BKcwggSjAgEAAoIBAQC7']);
  });

  test("the keys of AGENT_CODEC_KEY_FILE and the model stream's TLS key are secrets too", () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), 'secret-files-'));
    const keyFile = path.join(directory, 'codec.keys');
    const primary = 'q2n5O7Jx0vQm3m8pP9a1xQmYJbq3cX6Zq1m2n3o4p5Q=';
    const older = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=';
    writeFileSync(
      keyFile,
      `# rotated monthly, id=base64\nprimary=${primary}\nold = ${older} # kept to read older runs\n`,
    );
    const streamKey = path.join(directory, 'stream.key');
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIEvAIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n';
    writeFileSync(streamKey, pem);

    const secrets = configuredSecrets({ AGENT_CODEC_KEY_FILE: keyFile, AGENT_STREAM_TLS_KEY: streamKey });

    expect(secrets).toEqual([primary, older, pem, pem.trim(), 'MIIEvAIBADANBgkqhkiG9w0BAQEFAASC']);
  });

  test('a key file that cannot be read is not an error here: the connection reports it', () => {
    expect(configuredSecrets({ TEMPORAL_TLS_KEY: '/nonexistent/client.key' })).toEqual([]);
  });
});

describe('loadModelStreamConfig', () => {
  test('an empty environment gives the defaults', () => {
    expect(loadModelStreamConfig({})).toEqual({ host: '127.0.0.1', port: 0 });
  });

  test('reads the variables, trimming the public URL of trailing slashes', () => {
    expect(
      loadModelStreamConfig({
        AGENT_STREAM_HOST: '0.0.0.0',
        AGENT_STREAM_PORT: '7300',
        AGENT_STREAM_PUBLIC_URL: 'http://worker-1:7300//',
      }),
    ).toEqual({
      host: '0.0.0.0',
      port: 7300,
      publicUrl: 'http://worker-1:7300',
    });
  });

  test('names every bad variable and what it expected', () => {
    const error = configErrorOf(() =>
      loadModelStreamConfig({ AGENT_STREAM_PORT: 'eighty', AGENT_STREAM_PUBLIC_URL: 'worker-1:7300' }),
    );

    expect(error.message).toContain('AGENT_STREAM_PORT="eighty": expected a port number, 0 to 65535');
    expect(error.message).toContain('AGENT_STREAM_PUBLIC_URL="worker-1:7300": expected an http(s) URL');
  });
});

describe('loadLocalServerConfig and loadLocalRunConfig', () => {
  test('unset, a local dev server is started, with the default namespace and task queue', () => {
    expect(loadLocalServerConfig({ TEMPORAL_ADDRESS: '' })).toEqual({});
    expect(loadLocalRunConfig({ TEMPORAL_NAMESPACE: '', AGENT_TASK_QUEUE: '' })).toEqual({
      namespace: 'default',
      taskQueue: 'agent-runner',
    });
  });

  test('a named server is checked as host:port', () => {
    expect(
      loadLocalServerConfig({ TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_UI_URL: 'http://temporal-ui:8080/' }),
    ).toMatchObject({
      address: 'temporal:7233',
      uiUrl: 'http://temporal-ui:8080',
      temporal: { address: 'temporal:7233', namespace: 'default' },
    });
    expect(configErrorOf(() => loadLocalServerConfig({ TEMPORAL_ADDRESS: 'temporal' })).message).toContain(
      'TEMPORAL_ADDRESS="temporal": expected host:port, for example localhost:7233',
    );
  });
});

describe('loadClientTaskQueue', () => {
  test('AGENT_TASK_QUEUE, blank counting as unset', () => {
    expect(loadClientTaskQueue({ AGENT_TASK_QUEUE: 'mine' })).toBe('mine');
    expect(loadClientTaskQueue({ AGENT_TASK_QUEUE: '' })).toBe('agent-runner');
  });
});

describe('loadTemporalCliConfig', () => {
  test('reads the CLI path and the cache directories; blank counts as unset', () => {
    expect(
      loadTemporalCliConfig({
        TEMPORAL_CLI_PATH: '/opt/temporal',
        AGENT_RUNNER_CACHE_DIR: '',
        XDG_CACHE_HOME: '/cache',
      }),
    ).toEqual({
      TEMPORAL_CLI_PATH: '/opt/temporal',
      XDG_CACHE_HOME: '/cache',
    });
  });
});
