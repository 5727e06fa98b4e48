import { API_MAX_JSON_DEPTH } from '../../src/shared/defaults/api';
import { TEST_TOKEN } from '../helpers/api';
import { rawRequest } from '../helpers/raw-http';
import { useApiWorld } from '../helpers/api-world';

const world = useApiWorld();

/** JSON text of `inner` wrapped in `levels` objects `{"a": ...}`. */
function nestedObjects(levels: number, inner = '1'): string {
  return '{"a":'.repeat(levels) + inner + '}'.repeat(levels);
}

describe('JSON nesting', () => {
  test('a stopWhen nested 1,000 levels and custom params nested 10,000 get 400 invalid_body, not 500', async () => {
    const deepStop = '{"any":['.repeat(1000) + '{"maxIterations":1}' + ']}'.repeat(1000);
    const stopBody = `{"input":{"model":"m","message":"hi","stopWhen":${deepStop}}}`;
    expect(stopBody.length).toBeLessThan(20_000);
    const paramsBody = `{"input":{"model":"m","message":"hi","stopWhen":{"custom":"c","params":${nestedObjects(10_000)}}}}`;
    for (const body of [stopBody, paramsBody]) {
      const answer = await world.api.post('/runs', body);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        error: {
          code: 'invalid_body',
          message: expect.stringContaining(`more than ${API_MAX_JSON_DEPTH} levels`),
          details: [{ field: '(body)', problem: expect.any(String) }],
        },
      });
    }
    // A chat body too: the limit is the parser's, for every route.
    const chat = await world.api.post(
      '/chat',
      `{"context_id":"deep","message":"hi","tools":${'['.repeat(100)}${']'.repeat(100)}}`,
    );
    expect(chat.status).toBe(400);
    expect(chat.body.error.code).toBe('invalid_body');
    expect((await world.api.get('/conversations/deep')).status).toBe(404);
  });

  test('a body nested exactly to the limit is parsed and goes on to the route', async () => {
    // body (1) > arguments (2) > the nested objects: the deepest object is level API_MAX_JSON_DEPTH.
    const body = `{"call_id":"call_1","arguments":${nestedObjects(API_MAX_JSON_DEPTH - 1)}}`;
    const answer = await world.api.post('/runs/no-such-run/approve', body);
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('run_not_found');
    const deeper = await world.api.post(
      '/runs/no-such-run/approve',
      `{"call_id":"call_1","arguments":${nestedObjects(API_MAX_JSON_DEPTH)}}`,
    );
    expect(deeper.status).toBe(400);
    expect(deeper.body.error.code).toBe('invalid_body');
  });

  test('brackets inside strings do not count, and the default parser still refuses __proto__ keys', async () => {
    const bracketed = await world.api.post('/runs/no-such-run/deny', { call_id: 'call_1', reason: '['.repeat(5000) });
    expect(bracketed.status).toBe(404);
    const poisoned = await world.api.post('/runs/no-such-run/deny', '{"call_id":"call_1","__proto__":{"admin":true}}');
    expect(poisoned.status).toBe(400);
    expect(poisoned.body.error.code).toBe('invalid_json');
  });
});

describe('requests the HTTP parser refuses', () => {
  const host = () => new URL(world.api.url).host;
  const auth = `Authorization: Bearer ${TEST_TOKEN}\r\n`;

  test.each([
    ['a raw space in the path', () => `GET /runs/a b HTTP/1.1\r\nHost: ${host()}\r\n${auth}\r\n`],
    [
      'a NUL byte in Authorization',
      () => `GET /runs HTTP/1.1\r\nHost: ${host()}\r\nAuthorization: Bearer ${TEST_TOKEN}\u0000\r\n\r\n`,
    ],
    [
      'a control character in Idempotency-Key',
      () =>
        `POST /chat HTTP/1.1\r\nHost: ${host()}\r\n${auth}Idempotency-Key: key\u0001one\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
    ],
    [
      'a Content-Length that is not a number',
      () =>
        `POST /runs HTTP/1.1\r\nHost: ${host()}\r\n${auth}Content-Type: application/json\r\nContent-Length: abc\r\n\r\n{}`,
    ],
    [
      'a negative Content-Length',
      () =>
        `POST /runs HTTP/1.1\r\nHost: ${host()}\r\n${auth}Content-Type: application/json\r\nContent-Length: -1\r\n\r\n{}`,
    ],
    [
      'both Content-Length and Transfer-Encoding',
      () =>
        `POST /runs HTTP/1.1\r\nHost: ${host()}\r\n${auth}Content-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    ],
  ])('%s gets 400 bad_request in the API error shape', async (_name, request) => {
    const answer = await rawRequest(world.api.url, request());
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: 'bad_request', message: expect.stringContaining('not valid HTTP') },
    });
  });

  test('headers past the size limit get 431 headers_too_large in the API error shape', async () => {
    const answer = await rawRequest(
      world.api.url,
      `GET /runs HTTP/1.1\r\nHost: ${host()}\r\n${auth}X-Filler: ${'x'.repeat(40_000)}\r\n\r\n`,
    );
    expect(answer.status).toBe(431);
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'headers_too_large', message: expect.any(String) } });
  });

  test('the server goes on answering well-formed requests', async () => {
    await rawRequest(world.api.url, `GET /runs/a b HTTP/1.1\r\nHost: ${host()}\r\n\r\n`);
    expect((await world.api.get('/healthz')).status).toBe(200);
  });
});
