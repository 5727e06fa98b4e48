import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { ScriptedModelServer } from '../src/scripted-model/server';
import { startDevServer, type StartedDevServer } from '../src/dev-server/dev-server';

/** What the bench and the history recorder run on: an in-memory dev server and a scripted model. */
export interface LocalStack {
  server: StartedDevServer;
  model: ScriptedModelServer;
  client: Client;
  workerConnection: NativeConnection;
}

/** Starts the stack, runs `body` on it, and tears it all down whatever happens. */
export async function withLocalStack<T>(body: (stack: LocalStack) => Promise<T>): Promise<T> {
  const server = await startDevServer({ port: 0, uiPort: 0, log: (line) => console.log(line) });
  const model = await ScriptedModelServer.start();
  const workerConnection = await NativeConnection.connect({ address: server.address });
  const clientConnection = await Connection.connect({ address: server.address });
  try {
    return await body({ server, model, client: new Client({ connection: clientConnection }), workerConnection });
  } finally {
    await clientConnection.close();
    await workerConnection.close();
    await model.close();
    await server.stop();
  }
}
