import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive, startDevServer, type StartedDevServer } from '../../src/dev-server/dev-server';
import { freePort } from '../../src/os/ports';

/**
 * A SQLite-backed dev server the chaos harness can SIGKILL and start again
 * on the same ports and file, so clients and workers reconnect to the same
 * address and find their runs where the killed server left them.
 */
export class RestartableServer {
  restarts = 0;

  private constructor(
    private server: StartedDevServer,
    private readonly ports: { port: number; uiPort: number },
    private readonly dbFilename: string,
    private readonly log: (line: string) => void,
  ) {}

  static async start(directory: string, log: (line: string) => void): Promise<RestartableServer> {
    const ports = { port: await freePort(), uiPort: await freePort() };
    const dbFilename = path.join(directory, 'chaos.sqlite');
    const server = await startDevServer({ ...ports, dbFilename, log });
    if (server.pid === undefined) {
      await server.stop();
      throw new Error(
        'The chaos harness needs the Temporal CLI as a process of its own to kill it; run `npm run temporal:install` first.',
      );
    }
    return new RestartableServer(server, ports, dbFilename, log);
  }

  get address(): string {
    return this.server.address;
  }

  /** SIGKILLs the server (no shutdown, as a crash would leave it) and waits until the process is gone. */
  async kill(): Promise<void> {
    const pid = this.server.pid;
    if (pid === undefined) return;
    process.kill(pid, 'SIGKILL');
    while (isAlive(pid)) await sleep(50);
  }

  /** Starts the server again on the same ports and SQLite file; resolves once it answers. */
  async restart(): Promise<void> {
    this.server = await startDevServer({ ...this.ports, dbFilename: this.dbFilename, log: this.log });
    this.restarts += 1;
  }

  async stop(): Promise<void> {
    await this.server.stop();
  }
}
