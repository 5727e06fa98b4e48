import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { installQuietRuntime } from './quiet-runtime';
import { testServerAddress } from './test-env';

/** What a test file builds its own workers with (`Worker.create`): a scripted model and connections to the suite's server. */
export interface WorkerWorld {
  readonly model: ScriptedModelServer;
  readonly workerConnection: NativeConnection;
  readonly client: Client;
}

/** Starts a scripted model and connects a worker connection and a client before the file's tests; closes them after. */
export function useWorkerWorld(): WorkerWorld {
  let started: { model: ScriptedModelServer; workerConnection: NativeConnection; client: Client } | undefined;
  beforeAll(async () => {
    installQuietRuntime();
    const address = testServerAddress();
    const model = await ScriptedModelServer.start();
    const workerConnection = await NativeConnection.connect({ address });
    const clientConnection = await Connection.connect({ address });
    started = { model, workerConnection, client: new Client({ connection: clientConnection, namespace: 'default' }) };
  });
  afterAll(async () => {
    await started?.client.connection.close();
    await started?.workerConnection.close();
    await started?.model.close();
  });
  const current = () => {
    if (started === undefined) throw new Error('the worker world is started in beforeAll: use it inside a test');
    return started;
  };
  return {
    get model() {
      return current().model;
    },
    get workerConnection() {
      return current().workerConnection;
    },
    get client() {
      return current().client;
    },
  };
}
