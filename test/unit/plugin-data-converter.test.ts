import { randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { WorkerOptions } from '@temporalio/worker';
import { payloadCodecDataConverter } from '../../src/codec/data-converter';
import { AgentRunnerPlugin } from '../../src/worker/plugin';

/** The plugin's `dataConverter` option against a worker's own: merged, or refused when both name a codec. */

const keys = [{ id: 'k1', key: randomBytes(32) }];
const ownCodec: PayloadCodec = {
  encode: async (payloads: Payload[]) => payloads,
  decode: async (payloads: Payload[]) => payloads,
};
const plugin = (dataConverter?: ReturnType<typeof payloadCodecDataConverter>) =>
  new AgentRunnerPlugin({
    tools: [],
    model: { baseURL: 'http://127.0.0.1:9/v1', defaultModel: 'unused' },
    streamListener: false,
    ...(dataConverter === undefined ? {} : { dataConverter }),
  });
const worker = (extra: Partial<WorkerOptions> = {}) => ({ taskQueue: 'q', ...extra }) as WorkerOptions;

describe('AgentRunnerPlugin dataConverter', () => {
  test("the plugin's codec and failure converter go to the worker, the replay worker and a client", () => {
    const converter = payloadCodecDataConverter(keys);
    const configured = plugin(converter);
    expect(configured.configureWorker(worker()).dataConverter).toEqual(converter);
    expect(configured.configureReplayWorker({}).dataConverter).toEqual(converter);
    expect(configured.configureClient({}).dataConverter).toEqual(converter);
  });

  test("a worker's other data converter fields are kept; without the option the worker's own is untouched", () => {
    const converter = payloadCodecDataConverter(keys);
    const merged = plugin(converter).configureWorker(worker({ dataConverter: { payloadConverterPath: '/x.js' } }));
    expect(merged.dataConverter).toEqual({ ...converter, payloadConverterPath: '/x.js' });
    const own = { payloadCodecs: [ownCodec] };
    expect(plugin().configureWorker(worker({ dataConverter: own })).dataConverter).toBe(own);
  });

  test('a worker with codecs of its own and a plugin with a codec too is refused, naming the field', () => {
    expect(() =>
      plugin(payloadCodecDataConverter(keys)).configureWorker(worker({ dataConverter: { payloadCodecs: [ownCodec] } })),
    ).toThrow(/the worker's dataConverter already sets payloadCodecs, and so does the plugin's dataConverter option/);
  });
});
