import { Client, Connection } from '@temporalio/client';
import { testServerAddress } from './test-env';

/** A client whose calls to Temporal are counted by method name (`queryWorkflow`, `getWorkflowExecutionHistory`, ...). */
export interface CountingClient {
  client: Client;
  /** Calls of `method` made so far. */
  count(method: string): number;
  close(): Promise<void>;
}

/** A client of the test server that counts its calls: a query is one billed action, a history read none. */
export async function countingClient(): Promise<CountingClient> {
  const counts = new Map<string, number>();
  const connection = await Connection.connect({ address: testServerAddress() });
  const service = connection.workflowService;
  const counted = new Proxy(service, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof property !== 'string' || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        counts.set(property, (counts.get(property) ?? 0) + 1);
        return (value as (...args: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  Object.defineProperty(connection, 'workflowService', { value: counted });
  return {
    client: new Client({ connection, namespace: 'default' }),
    count: (method) => counts.get(method) ?? 0,
    close: () => connection.close(),
  };
}
