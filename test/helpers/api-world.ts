import { TestApi } from './api';
import { TestEnv } from './test-env';

/** A test file's HTTP API: its {@link TestEnv} and the API on it. */
export interface ApiWorld {
  readonly env: TestEnv;
  readonly api: TestApi;
}

/**
 * Creates a TestEnv and starts the API on it before the file's tests, and closes both after; read them inside tests
 * (or in a later `beforeAll`). `env` and `api` take what `TestEnv.create` and `TestApi.start` take.
 */
export function useApiWorld(
  options: { env?: Parameters<typeof TestEnv.create>[0]; api?: Parameters<typeof TestApi.start>[1] } = {},
): ApiWorld {
  let started: { env: TestEnv; api?: TestApi } | undefined;
  beforeAll(async () => {
    started = { env: await TestEnv.create(options.env) };
    started.api = await TestApi.start(started.env, options.api);
  });
  afterAll(async () => {
    await started?.api?.close();
    await started?.env.close();
  });
  const current = () => {
    if (started?.api === undefined) throw new Error('the API world is started in beforeAll: use it inside a test');
    return { env: started.env, api: started.api };
  };
  return {
    get env() {
      return current().env;
    },
    get api() {
      return current().api;
    },
  };
}
