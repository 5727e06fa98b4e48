import { ConfigError } from '../../src/config/config-error';
import { AgentRunnerPlugin } from '../../src/worker/plugin';

/** The plugin's `approvalRequired` option: a tool the workflow answers itself is refused, as the variable is. */

const plugin = (approvalRequired: string[]) =>
  new AgentRunnerPlugin({
    tools: [],
    model: { baseURL: 'http://127.0.0.1:9/v1', defaultModel: 'unused' },
    streamListener: false,
    tracing: false,
    approvalRequired,
  });

test('context_release is refused, naming the option and why', () => {
  expect(() => plugin(['write_file', 'context_release'])).toThrow(ConfigError);
  expect(() => plugin(['context_release'])).toThrow(
    /approvalRequired names "context_release": the workflow answers it itself .* Remove it from the list\./,
  );
});

test('result_cache is refused too: the workflow reads it from the run itself', () => {
  expect(() => plugin(['result_cache'])).toThrow(
    /approvalRequired names "result_cache": the workflow answers it itself from the run's own result cache/,
  );
});

test('worker tools and MCP wildcards are kept', () => {
  expect(() => plugin(['write_file', 'files__*'])).not.toThrow();
});
