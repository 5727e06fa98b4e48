import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { type AgentResult } from '../../src/shared/agent-result';
import { faultRecords } from '../helpers/fault-server';
import { isAlive } from '../../src/dev-server/dev-server';
import { crashWorkerStarter, useCrashWorld } from '../helpers/crash-worker';
import { waitFor } from '../helpers/wait';

/**
 * The worker SIGKILLed during an MCP tool call (test/fixtures/crash-worker.ts with the fault server): the stdio
 * server it started sees its stdin close and exits, a new worker runs the call again on a server of its own, and
 * the run ends as a crash-free run of the same script does.
 */
describe('a worker SIGKILLed during an MCP tool call', () => {
  const world = useCrashWorld();

  test('leaves no server process behind, and a new worker finishes the run as a crash-free run does', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'mcp-worker-crash-'));
    const log = path.join(directory, 'faulty.jsonl');
    const sideEffects = path.join(directory, 'side-effects.jsonl');
    await writeFile(sideEffects, '');
    const taskQueue = `mcp-crash-${randomUUID()}`;
    const startWorker = crashWorkerStarter({
      taskQueue,
      modelBaseURL: world.model.baseURL,
      sideEffects,
      workspace: directory,
      extraEnv: { FAULT_SERVER_LOG: log },
    });
    const script = (label: string) => {
      const name = `mcp-crash-${randomUUID()}`;
      world.model.script(name, [
        { toolCalls: [{ name: 'faulty__slow', arguments: { ms: 3_000, label } }] },
        { content: 'Done.' },
      ]);
      return name;
    };
    const run = (label: string) =>
      world.client.workflow.start(WORKFLOW_TYPE, {
        taskQueue,
        workflowId: `mcp-crash-${randomUUID()}`,
        args: [{ model: script(label), tools: ['faulty__slow'], message: 'Make the report.' }],
      });
    // What the run said and did, without the ids the scripted model numbers per request.
    const answers = (result: AgentResult) =>
      result.messages.map((message) => ({
        role: message.role,
        content: message.content,
        calls: 'tool_calls' in message ? message.tool_calls?.map((call) => call.function) : undefined,
      }));

    let worker = await startWorker();
    try {
      const reference = (await (await run('report')).result()) as AgentResult;

      const handle = await run('report');
      const calls = await waitFor(
        async () => faultRecords(log).filter((record) => record.event === 'call'),
        (records) => records.length === 2,
        60_000,
      );
      const serverPid = calls[1]!.pid;
      // The worker's node process is the server's parent (tsx, the group leader, runs it as a child).
      const workerPid = Number((await readFile(`/proc/${serverPid}/stat`, 'utf8')).split(') ')[1]!.split(' ')[1]);
      process.kill(workerPid, 'SIGKILL');
      // Its stdin closed with the worker: the server exits rather than live on as an orphan.
      await waitFor(
        async () => isAlive(serverPid),
        (alive) => !alive,
        5_000,
      );
      killGroup(worker.child.pid as number); // tsx, if it has not ended with its child
      worker = await startWorker();
      const result = (await handle.result()) as AgentResult;

      expect(answers(result)).toEqual(answers(reference));
      expect(result.response).toBe('Done.');
      const records = faultRecords(log).filter((record) => record.key === calls[1]!.key);
      expect(records.filter((record) => record.event === 'call').map((record) => record.pid)).toEqual([
        serverPid,
        expect.any(Number),
      ]);
      expect(records.filter((record) => record.event === 'done')).toHaveLength(1);
    } finally {
      killGroup(worker.child.pid as number);
    }
  }, 240_000);
});

/** SIGKILLs the process group `leader` leads, if any of it is left. */
function killGroup(leader: number): void {
  try {
    process.kill(-leader, 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}
