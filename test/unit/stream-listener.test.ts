import { DeltaHub, streamListenerSettings } from '../../src/activities/delta-hub';

describe('the stream listener settings', () => {
  test('the option wins, the environment fills what it leaves out, then the defaults', () => {
    const env = {
      AGENT_STREAM_HOST: '0.0.0.0',
      AGENT_STREAM_PORT: '7300',
      AGENT_STREAM_PUBLIC_URL: 'http://worker-1:7300/',
    };
    expect(streamListenerSettings({}, {})).toEqual({ host: '127.0.0.1', port: 0 });
    expect(streamListenerSettings({}, env)).toEqual({ host: '0.0.0.0', port: 7300, publicUrl: 'http://worker-1:7300' });
    expect(streamListenerSettings({ port: 7400 }, env)).toEqual({
      host: '0.0.0.0',
      port: 7400,
      publicUrl: 'http://worker-1:7300',
    });
    expect(streamListenerSettings({ host: '::1', port: 0, publicUrl: 'https://streams.example' }, env)).toEqual({
      host: '::1',
      port: 0,
      publicUrl: 'https://streams.example',
    });
  });

  test('a port that is no port is refused, naming it', () => {
    expect(() => streamListenerSettings({}, { AGENT_STREAM_PORT: 'eighty' })).toThrow(
      /AGENT_STREAM_PORT="eighty": expected a port number, 0 to 65535/,
    );
    expect(() => streamListenerSettings({ port: 70_000 }, {})).toThrow(/70000/);
  });

  test('one hub per address in a process; started, it answers at the URL it gives out', async () => {
    const hub = DeltaHub.forProcess({ host: '127.0.0.1', port: 0 });
    expect(DeltaHub.forProcess({ host: '127.0.0.1', port: 0 })).toBe(hub);
    const url = await hub.start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${url}/model-streams/00000000-0000-0000-0000-000000000000`);
    expect(response.status).toBe(404);
    await hub.close();
  });
});
