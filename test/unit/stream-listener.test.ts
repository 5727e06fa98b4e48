import { writeFileSync } from 'node:fs';
import { request } from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { DeltaHub, streamListenerSettings } from '../../src/activities/delta-hub';
import type { ChannelLine } from '../../src/shared/model-stream-events';
import { selfSignedCert } from '../helpers/self-signed-cert';

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

  test('TLS from AGENT_STREAM_TLS_CERT and AGENT_STREAM_TLS_KEY (files), or from the option (contents)', () => {
    const pair = selfSignedCert();
    const fromFiles = streamListenerSettings(
      {},
      { AGENT_STREAM_TLS_CERT: pair.certPath, AGENT_STREAM_TLS_KEY: pair.keyPath },
    );
    expect(fromFiles.tls).toEqual({ cert: pair.cert, key: pair.key });
    // The option wins, and the files of the environment are then not read (here they do not exist).
    const fromOption = streamListenerSettings(
      { tls: { cert: pair.cert, key: pair.key } },
      { AGENT_STREAM_TLS_CERT: '/nowhere/cert.pem', AGENT_STREAM_TLS_KEY: '/nowhere/key.pem' },
    );
    expect(fromOption.tls?.cert).toEqual(pair.cert);
  });

  test('TLS settings that cannot work are refused, naming the variable, never showing the key', () => {
    const pair = selfSignedCert();
    const other = selfSignedCert();
    expect(() => streamListenerSettings({}, { AGENT_STREAM_TLS_CERT: pair.certPath })).toThrow(
      /set AGENT_STREAM_TLS_CERT and AGENT_STREAM_TLS_KEY together/,
    );
    expect(() =>
      streamListenerSettings({}, { AGENT_STREAM_TLS_CERT: '/nowhere/cert.pem', AGENT_STREAM_TLS_KEY: pair.keyPath }),
    ).toThrow(/AGENT_STREAM_TLS_CERT="\/nowhere\/cert.pem": the file cannot be read \(ENOENT\)/);
    const notPem = path.join(os.tmpdir(), `not-pem-${process.pid}.txt`);
    writeFileSync(notPem, 'hello');
    expect(() =>
      streamListenerSettings({}, { AGENT_STREAM_TLS_CERT: pair.certPath, AGENT_STREAM_TLS_KEY: notPem }),
    ).toThrow(/AGENT_STREAM_TLS_KEY=".*": the file holds no PEM block/);
    let mismatch: unknown;
    try {
      streamListenerSettings({ tls: { cert: pair.cert, key: other.key } });
    } catch (error) {
      mismatch = error;
    }
    expect(String(mismatch)).toMatch(/certificate and key cannot serve https/);
    expect(String(mismatch)).not.toContain(other.key.toString().split('\n')[1]);
  });
});

describe('the stream listener', () => {
  test('one hub per address in a process; started, it answers at the URL it gives out', async () => {
    const hub = DeltaHub.forProcess({ host: '127.0.0.1', port: 0 });
    expect(DeltaHub.forProcess({ host: '127.0.0.1', port: 0 })).toBe(hub);
    const url = await hub.start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${url}/model-streams/00000000-0000-0000-0000-000000000000`, {
      headers: { authorization: 'Bearer anything' },
    });
    expect(response.status).toBe(404);
    await hub.close();
  });

  test("bound to every address without a public URL, it gives out the machine's host name (a compose replica's own), and answers there", async () => {
    const hub = new DeltaHub({ host: '0.0.0.0', port: 0 });
    const url = await hub.start();
    expect(url).toMatch(new RegExp(`^http://${os.hostname().replace(/[.]/g, '\\.')}:\\d+$`));
    const response = await fetch(`${url}/model-streams/00000000-0000-0000-0000-000000000000`);
    expect(response.status).toBe(401);
    await hub.close();
  });

  test('each channel has its own fresh 256-bit credential; without it 401, with a wrong one 404, the same as a channel that does not exist; no delta text either way', async () => {
    const hub = new DeltaHub({ host: '127.0.0.1', port: 0 });
    try {
      const channel = await hub.open();
      const second = await hub.open();
      expect(channel.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(channel.token, 'base64url')).toHaveLength(32);
      expect(second.token).not.toBe(channel.token);
      expect(channel.url).not.toContain(channel.token);
      channel.publish({ kind: 'text', text: 'the secret answer' });
      channel.end('completed');

      const read = async (url: string, headers: Record<string, string>) => {
        const response = await fetch(url, { headers });
        return { status: response.status, body: await response.text(), auth: response.headers.get('www-authenticate') };
      };
      const bare = await read(channel.url, {});
      expect(bare).toMatchObject({ status: 401, auth: 'Bearer' });
      const wrong = await read(channel.url, { authorization: `Bearer ${second.token}` });
      const forged = await read(channel.url, { authorization: `Bearer ${'A'.repeat(43)}` });
      const basic = await read(channel.url, {
        authorization: `Basic ${Buffer.from(`x:${channel.token}`).toString('base64')}`,
      });
      const missing = await read(channel.url.replace(/[0-9a-f-]{36}$/, '00000000-0000-0000-0000-000000000000'), {
        authorization: `Bearer ${channel.token}`,
      });
      expect(wrong).toEqual({ status: 404, body: 'no such model stream\n', auth: null });
      expect(forged).toEqual(wrong);
      expect(missing).toEqual(wrong);
      expect(basic.status).toBe(401);
      // The URL with its token in the query is still no credential.
      expect((await read(`${channel.url}?token=${channel.token}`, {})).status).toBe(404);
      for (const answer of [bare, wrong, forged, basic, missing]) expect(answer.body).not.toContain('secret answer');

      const right = await read(channel.url, { authorization: `Bearer ${channel.token}` });
      expect(right.status).toBe(200);
      expect(
        right.body
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line) as ChannelLine),
      ).toEqual([{ index: 0, delta: { kind: 'text', text: 'the secret answer' } }, { end: 'completed' }]);
    } finally {
      await hub.close();
    }
  });

  test('with a certificate it serves https, trusted by the CA given and refused without it', async () => {
    const pair = selfSignedCert();
    const hub = new DeltaHub(streamListenerSettings({ host: '127.0.0.1', port: 0, tls: pair }, {}));
    try {
      const channel = await hub.open();
      expect(channel.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/model-streams\//);
      channel.publish({ kind: 'text', text: 'over TLS' });
      channel.end('completed');
      const get = (ca?: Buffer) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const sent = request(
            channel.url,
            { headers: { authorization: `Bearer ${channel.token}` }, ...(ca === undefined ? {} : { ca }) },
            (response) => {
              let body = '';
              response.on('data', (chunk: Buffer) => (body += chunk.toString()));
              response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
            },
          );
          sent.on('error', reject);
          sent.end();
        });
      await expect(get()).rejects.toThrow(/self-signed certificate/);
      const trusted = await get(pair.cert);
      expect(trusted.status).toBe(200);
      expect(trusted.body).toContain('over TLS');
      // Plain http to the https port gets nothing of the stream.
      const plain = await fetch(channel.url.replace('https:', 'http:'), {
        headers: { authorization: `Bearer ${channel.token}` },
      }).then(
        (response) => response.text(),
        (error: unknown) => String(error),
      );
      expect(plain).not.toContain('over TLS');
    } finally {
      await hub.close();
    }
  });
});
