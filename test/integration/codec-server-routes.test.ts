import { createHmac } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApiServer } from '../../src/api/server';
import { AesGcmPayloadCodec } from '../../src/codec/aes-gcm-codec';
import { UNOPENED_KEYS_HEADER, buildCodecServer } from '../../src/codec-server/server';
import { CODEC_SESSION_COOKIE } from '../../src/shared/defaults/codec-server';
import { TEST_TOKEN, type Json } from '../helpers/api';
import { newCodecKey } from '../helpers/encrypted-agent';
import { testServerAddress } from '../helpers/test-env';

/**
 * The codec server's routes over real HTTP: Temporal's codec protocol, its CORS for the web UI, its own
 * authentication (bearer token, sign-in cookie), the bodies it refuses, and a payload whose key it does not hold;
 * then the same routes mounted in the HTTP API, behind the API's token.
 */

const TOKEN = 'codec-routes-token-0123456789';
const UI_ORIGIN = 'http://localhost:8233';
const held = newCodecKey('current');
const other = newCodecKey('retired');

let app: FastifyInstance;
let url: string;
beforeAll(async () => {
  app = buildCodecServer({
    codec: new AesGcmPayloadCodec([held]),
    token: TOKEN,
    corsOrigins: [UI_ORIGIN],
    bodyLimit: 64 * 1024,
    maxPayloads: 10,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await app.close();
});

const bearer = { authorization: `Bearer ${TOKEN}` };
const b64 = (text: string) => Buffer.from(text).toString('base64');
/** A payload as the web UI sends it: json/plain, the JSON text in base64. */
const jsonPayload = (value: unknown) => ({
  metadata: { encoding: b64('json/plain') },
  data: b64(JSON.stringify(value)),
});

async function post(
  path: string,
  body: unknown,
  headers: Record<string, string> = bearer,
): Promise<{ status: number; headers: Headers; body: Json }> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}

describe('the codec protocol', () => {
  test('encode then decode gives the payloads back, in order; encoded ones are encrypted under the primary key id', async () => {
    const payloads = [jsonPayload({ message: 'first secret' }), jsonPayload('second secret')];
    const encoded = await post('/encode', { payloads });
    expect(encoded.status).toBe(200);
    expect(encoded.body.payloads).toHaveLength(2);
    for (const payload of encoded.body.payloads) {
      expect(payload.metadata.encoding).toBe(b64('binary/encrypted'));
      expect(payload.metadata['encryption-key-id']).toBe(b64('current'));
      expect(Buffer.from(payload.data, 'base64').toString()).not.toContain('secret');
    }
    // The web UI adds ?preserveStorageRefs=true; the query is no concern of the codec.
    const decoded = await post('/decode?preserveStorageRefs=true', encoded.body, {
      ...bearer,
      'x-namespace': 'default',
    });
    expect(decoded.status).toBe(200);
    expect(decoded.body).toEqual({ payloads });
    expect(decoded.headers.get(UNOPENED_KEYS_HEADER)).toBeNull();
  });

  test('a payload under a key the server does not hold comes back untouched, its key id named; the others are decoded', async () => {
    const foreign = (await new AesGcmPayloadCodec([other]).encode([{ metadata: {}, data: Buffer.from('x') }]))[0]!;
    const foreignJson = {
      metadata: Object.fromEntries(
        Object.entries(foreign.metadata!).map(([name, value]) => [name, Buffer.from(value!).toString('base64')]),
      ),
      data: Buffer.from(foreign.data!).toString('base64'),
    };
    const mine = (await post('/encode', { payloads: [jsonPayload('readable')] })).body.payloads[0];
    const decoded = await post('/decode', { payloads: [foreignJson, mine] });
    expect(decoded.status).toBe(200);
    expect(decoded.body.payloads).toEqual([foreignJson, jsonPayload('readable')]);
    expect(decoded.headers.get(UNOPENED_KEYS_HEADER)).toBe('retired');
  });

  test('payloads in clear pass through decode as they are', async () => {
    const payloads = [jsonPayload('plain'), { metadata: { encoding: b64('binary/null') }, data: '' }];
    expect((await post('/decode', { payloads })).body).toEqual({ payloads });
  });

  test.each([
    ['not JSON', 'invalid_json', '{"payloads": ['],
    ['no payloads field', 'invalid_body', { items: [] }],
    ['data not base64', 'invalid_body', { payloads: [{ metadata: {}, data: 'not base64!' }] }],
    ['metadata not base64', 'invalid_body', { payloads: [{ metadata: { encoding: '***' }, data: '' }] }],
    ['more payloads than allowed', 'invalid_body', { payloads: Array.from({ length: 11 }, () => jsonPayload(1)) }],
  ])('a body with %s is refused with 400 %s', async (_what, code, body) => {
    const answer = await post('/decode', body);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(code);
    expect(typeof answer.body.error.message).toBe('string');
  });

  test('a body past the limit is refused with 413 body_too_large', async () => {
    const answer = await post('/decode', { payloads: [{ metadata: {}, data: b64('x'.repeat(70 * 1024)) }] });
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe('body_too_large');
  });
});

describe('authentication', () => {
  const encrypted = async () => (await post('/encode', { payloads: [jsonPayload('guarded')] })).body;

  test.each([
    ['no credential', {}],
    ['a wrong token', { authorization: 'Bearer not-the-token-at-all' }],
    ['a token that is not a bearer token', { authorization: `Basic ${TOKEN}` }],
    ['a forged session cookie', { cookie: `${CODEC_SESSION_COOKIE}=99999999999999.${'A'.repeat(43)}` }],
    ['the token itself as the cookie', { cookie: `${CODEC_SESSION_COOKIE}=${TOKEN}` }],
  ])('%s: 401 unauthorized, nothing decoded', async (_what, headers) => {
    const body = await encrypted();
    for (const path of ['/decode', '/encode']) {
      const answer = await post(path, body, headers);
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ error: { code: 'unauthorized', message: expect.stringContaining('/login') } });
      expect(JSON.stringify(answer.body)).not.toContain('guarded');
    }
  });

  test('signing in at /login sets an HttpOnly SameSite=Strict cookie that decodes; signing out ends it', async () => {
    const refused = await post('/login', { token: 'wrong-token-0123456789' }, {});
    expect(refused.status).toBe(401);
    expect(refused.headers.get('set-cookie')).toBeNull();

    const login = await post('/login', { token: TOKEN }, {});
    expect(login.status).toBe(200);
    const setCookie = login.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(new RegExp(`^${CODEC_SESSION_COOKIE}=[A-Za-z0-9_-]{22}\\.\\d+\\.[A-Za-z0-9_-]{43};`));
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).not.toContain(TOKEN);
    const cookie = setCookie.split(';')[0]!;

    const decoded = await post('/decode', await encrypted(), { cookie, origin: UI_ORIGIN });
    expect(decoded.status).toBe(200);
    expect(decoded.body.payloads).toEqual([jsonPayload('guarded')]);
    expect(decoded.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(decoded.headers.get('access-control-allow-credentials')).toBe('true');

    const logout = await post('/logout', {}, { cookie });
    expect(logout.headers.get('set-cookie')).toMatch(new RegExp(`^${CODEC_SESSION_COOKIE}=; .*Max-Age=0`));
    // A copy of the cookie kept from before the sign-out is refused: the server revoked the session.
    const replayed = await post('/decode', await encrypted(), { cookie, origin: UI_ORIGIN });
    expect(replayed.status).toBe(401);
    expect(JSON.stringify(replayed.body)).not.toContain('guarded');
  });

  test('the session cookie is not signed with the token: a cookie forged with it is refused', async () => {
    const expiresAt = Date.now() + 60_000;
    const id = 'A'.repeat(22);
    for (const payload of [`agent-codec-session:${expiresAt}`, `agent-codec-session:${id}:${expiresAt}`]) {
      const signature = createHmac('sha256', TOKEN).update(payload).digest('base64url');
      for (const value of [`${expiresAt}.${signature}`, `${id}.${expiresAt}.${signature}`]) {
        const answer = await post('/decode', await encrypted(), { cookie: `${CODEC_SESSION_COOKIE}=${value}` });
        expect(answer.status).toBe(401);
      }
    }
  });

  test('failed sign-ins from one address are limited: 429 with Retry-After, even for the right token', async () => {
    const limited = buildCodecServer({
      codec: new AesGcmPayloadCodec([held]),
      token: TOKEN,
      corsOrigins: [UI_ORIGIN],
      loginLimit: { failures: 3, windowMs: 60_000 },
    });
    await limited.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(limited.server.address() as { port: number }).port}`;
    const login = async (token: string) => {
      const response = await fetch(`${base}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
      return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
    };
    try {
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 10; attempt += 1)
        statuses.push((await login(`guess-${attempt}-0123456789`)).status);
      expect(statuses).toEqual([401, 401, 401, 429, 429, 429, 429, 429, 429, 429]);
      const right = await login(TOKEN);
      expect(right.status).toBe(429);
      expect(right.body.error.code).toBe('too_many_logins');
      expect(Number(right.retryAfter)).toBeGreaterThan(0);
      expect(Number(right.retryAfter)).toBeLessThanOrEqual(60);
    } finally {
      await limited.close();
    }
  });

  test('the sign-in form posts from the server itself; the page never shows the token', async () => {
    const page = await fetch(`${url}/login`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form method="post" action="/login">');
    const form = await fetch(`${url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
      body: new URLSearchParams({ token: TOKEN }).toString(),
      redirect: 'manual',
    });
    expect(form.status).toBe(200);
    expect(form.headers.get('set-cookie')).toContain(`${CODEC_SESSION_COOKIE}=`);
    expect(await form.text()).not.toContain(TOKEN);
  });
});

describe('CORS', () => {
  const preflight = (origin: string) =>
    fetch(`${url}/decode`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-namespace',
      },
    });

  test("a preflight from the UI's origin is answered with its origin, credentials and the headers the UI sends", async () => {
    const answer = await preflight(UI_ORIGIN);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(answer.headers.get('access-control-allow-credentials')).toBe('true');
    expect(answer.headers.get('access-control-allow-methods')).toBe('POST');
    const allowed = (answer.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const header of ['content-type', 'x-namespace', 'authorization']) expect(allowed).toContain(header);
    expect(answer.headers.get('vary')).toContain('Origin');
  });

  test('a preflight, or a request with the token, from another origin is refused with 403 and no CORS headers', async () => {
    const refused = await preflight('http://evil.example:8233');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect((await refused.json()).error.code).toBe('origin_not_allowed');

    const body = (await post('/encode', { payloads: [jsonPayload('guarded')] })).body;
    const answer = await post('/decode', body, { ...bearer, origin: 'http://localhost:9999' });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('origin_not_allowed');
    expect(JSON.stringify(answer.body)).not.toContain('guarded');
  });

  test('a refused request from the allowed origin carries the CORS headers, so the UI can read the 401', async () => {
    const answer = await post('/decode', { payloads: [] }, { origin: UI_ORIGIN });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
  });
});

describe('the routes mounted in the HTTP API', () => {
  test('POST /codec/encode and /codec/decode answer behind the API token, and 401 without it', async () => {
    const connection = await Connection.connect({ address: testServerAddress() });
    const api = buildApiServer({
      client: new Client({ connection }),
      taskQueue: 'unused',
      auth: { token: TEST_TOKEN },
      defaults: { tools: [] },
      codec: new AesGcmPayloadCodec([held]),
    });
    try {
      await api.listen({ host: '127.0.0.1', port: 0 });
      const apiUrl = `http://127.0.0.1:${(api.server.address() as { port: number }).port}`;
      const call = async (path: string, body: unknown, token: string) => {
        const response = await fetch(`${apiUrl}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as Json };
      };
      const payloads = [jsonPayload('through the API')];
      const encoded = await call('/codec/encode', { payloads }, TEST_TOKEN);
      expect(encoded.status).toBe(200);
      expect(encoded.body.payloads[0].metadata.encoding).toBe(b64('binary/encrypted'));
      expect(await call('/codec/decode', encoded.body, TEST_TOKEN)).toEqual({ status: 200, body: { payloads } });
      // The codec server's token is not the API's.
      const refused = await call('/codec/decode', encoded.body, TOKEN);
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('unauthorized');
    } finally {
      await api.close();
      await connection.close();
    }
  });
});
