import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isAlive, startDevServer, waitForServer } from '../../src/dev-server/dev-server';
import { ServerExitedError } from '../../src/dev-server/server-exited-error';
import { freePort } from '../../src/os/ports';

/**
 * Waiting for a Temporal server that does not come up: the wait says what it
 * waits for while it waits, and its error ends with the last lines of the
 * server's log. A port nobody listens on stands for a server that never
 * answers; short timeouts keep the tests fast.
 */
let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'agent-runner-server-wait-'));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const numberedLines = (from: number, to: number): string =>
  Array.from({ length: to - from + 1 }, (_, index) => `server line ${from + index}`).join('\n');

describe('waitForServer', () => {
  test('gives up after its timeout with the last 30 lines of the log, saying meanwhile what it waits for', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const logFile = path.join(directory, 'server.log');
    await writeFile(logFile, `${numberedLines(1, 40)}\n`);
    const progress: string[] = [];

    const failure = waitForServer(address, 1_500, {
      log: (line) => progress.push(line),
      progressEveryMs: 500,
      serverLog: { file: logFile },
    });

    await expect(failure).rejects.toThrow(
      `The Temporal server at ${address} did not answer within 1.5 s.\nThe last lines of its log, ${logFile}:\n${numberedLines(11, 40)}`,
    );
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]).toMatch(
      new RegExp(
        `^Waiting for the Temporal server at ${address} to answer \\(\\d+ s; a first start after a build can take a minute\\)\\.\\.\\.$`,
      ),
    );
  });

  test('an empty or missing log is said to be empty', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const logFile = path.join(directory, 'missing.log');

    await expect(waitForServer(address, 300, { serverLog: { file: logFile } })).rejects.toThrow(
      `The Temporal server at ${address} did not answer within 0.3 s. Nothing in its log, ${logFile}.`,
    );
  });

  test('a server that exited is reported at once with its output', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const started = Date.now();

    await expect(
      waitForServer(address, 60_000, {
        serverLog: { output: () => 'listen tcp 127.0.0.1:7233: bind: address already in use\n' },
        check: () => {
          throw new ServerExitedError(1);
        },
      }),
    ).rejects.toThrow(
      'temporal server start-dev exited with code 1 before it answered.\nThe last lines of its output:\nlisten tcp 127.0.0.1:7233: bind: address already in use',
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('startDevServer with a CLI whose server never answers', () => {
  /** A stand-in for the `temporal` binary: prints `lines` lines to stderr, then `then` (a shell command). */
  async function fakeCli(lines: number, then: string): Promise<string> {
    const file = path.join(directory, 'temporal');
    await writeFile(file, `#!/bin/sh\nfor i in $(seq 1 ${lines}); do echo "server line $i" >&2; done\n${then}\n`);
    await chmod(file, 0o755);
    return file;
  }

  async function withCli<T>(cli: string, body: () => Promise<T>): Promise<T> {
    const previous = process.env.TEMPORAL_CLI_PATH;
    process.env.TEMPORAL_CLI_PATH = cli;
    try {
      return await body();
    } finally {
      if (previous === undefined) delete process.env.TEMPORAL_CLI_PATH;
      else process.env.TEMPORAL_CLI_PATH = previous;
    }
  }

  test('a detached server: the error carries the tail of its log file, and the process is stopped', async () => {
    const cli = await fakeCli(35, `echo $$ > "${directory}/pid"; exec sleep 30`);
    const logFile = path.join(directory, 'logs', 'server.log');

    const failure = withCli(cli, () =>
      startDevServer({ port: 0, uiPort: 0, detached: true, logFile, startTimeoutMs: 1_500, log: () => {} }),
    );

    await expect(failure).rejects.toThrow(
      /did not answer within 1\.5 s\.\nThe last lines of its log, .*server\.log:\n/,
    );
    const message = ((await failure.catch((error: unknown) => error)) as Error).message;
    expect(message.endsWith(numberedLines(6, 35))).toBe(true);
    const pid = Number((await readFile(path.join(directory, 'pid'), 'utf8')).trim());
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(isAlive(pid)).toBe(false);
  });

  test('a server that exits at once: the error says so with its output', async () => {
    const cli = await fakeCli(3, 'exit 3');

    await expect(withCli(cli, () => startDevServer({ port: 0, uiPort: 0, log: () => {} }))).rejects.toThrow(
      `temporal server start-dev exited with code 3 before it answered.\nThe last lines of its output:\n${numberedLines(1, 3)}`,
    );
  });
});
