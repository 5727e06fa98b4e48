import { LOCAL_SERVER_DEFAULTS } from '../../src/shared/defaults/local-server';
import { devServerArgs } from '../../src/dev-server/dev-server';

const base = { ip: '127.0.0.1', port: 7233, uiPort: 8233 };

/** The value following each `--dynamic-config-value` flag. */
function dynamicConfigValues(args: string[]): string[] {
  return args.flatMap((arg, index) => (arg === '--dynamic-config-value' ? [args[index + 1] ?? ''] : []));
}

describe('devServerArgs', () => {
  test('the dev servers the project starts lift the queue read limit, start activities eagerly and cap the workflow task backoff', () => {
    const args = devServerArgs(base);
    expect(args.slice(0, 2)).toEqual(['server', 'start-dev']);
    expect(dynamicConfigValues(args)).toEqual([
      'history.transferProcessorMaxPollRPS=1000',
      'system.enableActivityEagerExecution=true',
      'history.workflowTaskRetryMaxInterval="10s"',
    ]);
    expect(LOCAL_SERVER_DEFAULTS.dynamicConfig).toEqual({
      'history.transferProcessorMaxPollRPS': 1000,
      'system.enableActivityEagerExecution': true,
      'history.workflowTaskRetryMaxInterval': '10s',
    });
  });

  test('stock: exactly what `temporal server start-dev` does, for the bench anchor', () => {
    expect(dynamicConfigValues(devServerArgs({ ...base, stock: true }))).toEqual([]);
  });

  test('address, ports, database and search attributes', () => {
    const args = devServerArgs({ ...base, dbFilename: '/tmp/dev.sqlite' });
    expect(args).toEqual(
      expect.arrayContaining([
        '--ip',
        '127.0.0.1',
        '--port',
        '7233',
        '--ui-port',
        '8233',
        '--db-filename',
        '/tmp/dev.sqlite',
      ]),
    );
    expect(args.filter((arg) => arg === '--search-attribute').length).toBeGreaterThan(0);
  });

  test("searchAttributes: false starts a namespace without the agent's search attributes, as a plain dev server has it", () => {
    expect(devServerArgs({ ...base, searchAttributes: false })).not.toContain('--search-attribute');
  });
});
