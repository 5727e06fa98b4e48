import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import { readToolSchemas } from '../../src/api/console/tool-schemas';

type Event = temporal.api.history.v1.IHistoryEvent;

const writeSchema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };

/** A run's first event: continuing `continues` when given. */
function started(continues?: string): Event {
  return {
    workflowExecutionStartedEventAttributes: continues === undefined ? {} : { continuedExecutionRunId: continues },
  };
}

/** The marker a completed `describeTools` local activity records, with a catalog of one tool. */
function catalogMarker(): Event {
  return {
    markerRecordedEventAttributes: {
      markerName: 'core_local_activity',
      details: {
        data: { payloads: [defaultPayloadConverter.toPayload({ activity_type: 'describeTools' })] },
        result: {
          payloads: [defaultPayloadConverter.toPayload({ tools: [{ name: 'write_file', parameters: writeSchema }] })],
        },
      },
    },
  };
}

/** A client whose history service serves `histories` by run id ('' for the latest run) and records what was asked. */
function clientOf(histories: Record<string, Event[]>) {
  const asked: string[] = [];
  const client = {
    options: { namespace: 'default', loadedDataConverter: loadDataConverter() },
    workflowService: {
      getWorkflowExecutionHistory: ({ execution }: { execution: { runId?: string } }) => {
        const runId = execution.runId ?? '';
        asked.push(runId);
        return Promise.resolve({ history: { events: histories[runId] ?? [] } });
      },
    },
  } as unknown as Client;
  return { client, asked };
}

describe("the inbox's tool schemas", () => {
  test("a run's own catalog is read from its latest history alone", async () => {
    const { client, asked } = clientOf({ '': [started('first'), catalogMarker()] });
    await expect(readToolSchemas(client, 'run-1')).resolves.toEqual({ write_file: writeSchema });
    expect(asked).toEqual(['']);
  });

  test('a continued run still loading its catalog is read through the runs it continues', async () => {
    const { client, asked } = clientOf({
      '': [started('second')],
      second: [started('first')],
      first: [started(), catalogMarker()],
    });
    await expect(readToolSchemas(client, 'run-1')).resolves.toEqual({ write_file: writeSchema });
    expect(asked).toEqual(['', 'second', 'first']);
  });

  test('a chain with no catalog reads as none, and the walk back is bounded', async () => {
    const { client, asked } = clientOf({ '': [started('a')], a: [started('b')], b: [started('c')], c: [started()] });
    await expect(readToolSchemas(client, 'run-1')).resolves.toEqual({});
    expect(asked).toEqual(['', 'a', 'b']);
  });
});
