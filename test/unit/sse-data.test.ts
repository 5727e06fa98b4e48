import { sseData } from '../../src/activities/sse-data';

/** A byte stream that delivers `parts` one read at a time, as a network does. */
function bytes(...parts: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(encoder.encode(part));
      controller.close();
    },
  });
}

async function all(body: ReadableStream<Uint8Array>): Promise<string[]> {
  const events: string[] = [];
  for await (const data of sseData(body)) events.push(data);
  return events;
}

describe('sseData: the data of each Server-Sent Event in a provider stream', () => {
  test('events end at a blank line, wherever the reads split them', async () => {
    expect(await all(bytes('data: {"a"', ':1}\n', '\ndata: [DO', 'NE]\n\n'))).toEqual(['{"a":1}', '[DONE]']);
  });

  test('CRLF and CR line ends, a CRLF split across reads, comments and other fields', async () => {
    expect(
      await all(bytes(': keep-alive\r\n\r\nevent: x\r\nid: 3\r\ndata: one\r', '\n\r\ndata:two\r\rdata: three\n\n')),
    ).toEqual(['one', 'two', 'three']);
  });

  test('several data lines of one event are joined with newlines; an event without data is skipped', async () => {
    expect(await all(bytes('data: first\ndata: second\n\nevent: ping\n\n'))).toEqual(['first\nsecond']);
  });

  test('a last event without its blank line still counts', async () => {
    expect(await all(bytes('data: a\n\ndata: b'))).toEqual(['a', 'b']);
  });

  test('a read that fails is thrown to the reader', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: a\n\n'));
        controller.error(new Error('other side closed'));
      },
    });
    const events: string[] = [];
    await expect(
      (async () => {
        for await (const data of sseData(body)) events.push(data);
      })(),
    ).rejects.toThrow('other side closed');
  });
});
