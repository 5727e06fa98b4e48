import { chmod, mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { TEMPORAL_CLI_VERSION, cliCacheDirectory, resolveTemporalCli } from '../../src/dev-server/temporal-cli';

/** Writes an executable shell script. */
async function executable(file: string, body: string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

async function scratch(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'cli-resolve-'));
}

describe('resolveTemporalCli', () => {
  test('TEMPORAL_CLI_PATH comes first, and a bad one is an error', async () => {
    const root = await scratch();
    const explicit = await executable(path.join(root, 'explicit', 'temporal'), 'exit 0');
    const onPath = await executable(path.join(root, 'bin', 'temporal'), 'exit 0');
    const env = { TEMPORAL_CLI_PATH: explicit, PATH: path.dirname(onPath), AGENT_RUNNER_CACHE_DIR: root };
    expect(await resolveTemporalCli(() => {}, env)).toEqual({ path: explicit, source: 'TEMPORAL_CLI_PATH' });
    await expect(
      resolveTemporalCli(() => {}, { ...env, TEMPORAL_CLI_PATH: path.join(root, 'missing') }),
    ).rejects.toThrow(`TEMPORAL_CLI_PATH=${path.join(root, 'missing')} is not an executable file.`);
  });

  test('then temporal on PATH, then the cached build', async () => {
    const root = await scratch();
    const onPath = await executable(path.join(root, 'bin', 'temporal'), 'exit 0');
    const cached = await executable(
      path.join(cliCacheDirectory({ AGENT_RUNNER_CACHE_DIR: root }), 'temporal'),
      'exit 0',
    );
    expect(await resolveTemporalCli(() => {}, { PATH: path.dirname(onPath), AGENT_RUNNER_CACHE_DIR: root })).toEqual({
      path: onPath,
      source: 'PATH',
    });
    expect(
      await resolveTemporalCli(() => {}, { PATH: path.join(root, 'empty'), AGENT_RUNNER_CACHE_DIR: root }),
    ).toEqual({
      path: cached,
      source: 'cache',
    });
  });

  test('then a one-time build with go into the cache, with a visible progress message', async () => {
    const root = await scratch();
    // A stand-in for go that records its arguments and "installs" a binary into GOBIN.
    const fakeGo = await executable(
      path.join(root, 'gobin', 'go'),
      `echo "$@" > "${root}/go-args"; echo "go: downloading example.com/module v1.0.0" >&2; printf '#!/bin/sh\\n' > "$GOBIN/temporal"; /bin/chmod +x "$GOBIN/temporal"`,
    );
    const lines: string[] = [];
    const env = { PATH: path.dirname(fakeGo), AGENT_RUNNER_CACHE_DIR: root };
    const resolved = await resolveTemporalCli((line) => lines.push(line), env);

    const expectedPath = path.join(root, 'agent-runner', 'temporal-cli', TEMPORAL_CLI_VERSION, 'temporal');
    expect(resolved).toEqual({ path: expectedPath, source: 'go build' });
    expect(lines[0]).toContain(
      `Building the Temporal CLI ${TEMPORAL_CLI_VERSION} from source with Go. This happens once`,
    );
    expect(lines.at(-1)).toMatch(
      new RegExp(`^Built the Temporal CLI in \\d+ s: ${expectedPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
    );
    const { readFile } = await import('node:fs/promises');
    expect((await readFile(path.join(root, 'go-args'), 'utf8')).trim()).toBe(
      `install github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`,
    );
    // The second time it is the cache.
    expect(await resolveTemporalCli(() => {}, env)).toEqual({ path: expectedPath, source: 'cache' });
  });

  test('a failed go build says what to do instead', async () => {
    const root = await scratch();
    const fakeGo = await executable(path.join(root, 'gobin', 'go'), 'echo "go: module lookup disabled" >&2; exit 1');
    await expect(
      resolveTemporalCli(() => {}, { PATH: path.dirname(fakeGo), AGENT_RUNNER_CACHE_DIR: root }),
    ).rejects.toThrow(
      /Building the Temporal CLI with Go failed:\ngo: module lookup disabled\nInstall the Temporal CLI yourself/,
    );
  });

  test('an unreachable checksum database is retried once with GOSUMDB=off', async () => {
    const root = await scratch();
    const fakeGo = await executable(
      path.join(root, 'gobin', 'go'),
      `if [ "$GOSUMDB" != off ]; then echo "verifying module: Get https://sum.golang.org/lookup: dial tcp: i/o timeout" >&2; exit 1; fi; printf '#!/bin/sh\\n' > "$GOBIN/temporal"; /bin/chmod +x "$GOBIN/temporal"`,
    );
    const lines: string[] = [];
    const resolved = await resolveTemporalCli((line) => lines.push(line), {
      PATH: path.dirname(fakeGo),
      AGENT_RUNNER_CACHE_DIR: root,
    });
    expect(resolved?.source).toBe('go build');
    expect(lines).toContain(
      'The Go checksum database cannot be reached; building once more with GOSUMDB=off for this build only.',
    );
  });

  test('no CLI and no go: undefined, so the caller falls back to the SDK download', async () => {
    const root = await scratch();
    expect(
      await resolveTemporalCli(() => {}, { PATH: path.join(root, 'empty'), AGENT_RUNNER_CACHE_DIR: root }),
    ).toBeUndefined();
  });
});
