import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import Ajv2020 from 'ajv/dist/2020';
import type { FastifyInstance } from 'fastify';
import { API_ERROR_CODES, API_ERROR_CODE_NAMES } from '../../src/http/error-codes';
import { openApiDocument, openApiDocumentText, openApiPath } from '../../src/api/openapi/document';
import { chatBody } from '../../src/api/schemas';
import { buildApiServer } from '../../src/api/server';
import { TestApi } from '../helpers/api';
import { TestEnv } from '../helpers/test-env';
import { waitFor } from '../helpers/wait';
import { AesGcmPayloadCodec } from '../../src/codec/aes-gcm-codec';
import { randomBytes } from 'node:crypto';

/**
 * The OpenAPI document against the server it describes: every route fastify
 * registered has its operation and every operation a route; the document is
 * valid OpenAPI 3.1; real requests the routes accept, and their answers, fit
 * its schemas; the server serves it, docs/openapi.json holds it, and the
 * reference page lists the error catalogue.
 */

// Any JSON the document holds; the assertions pick it apart.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const document = openApiDocument() as Json;
const root = path.join(__dirname, '../..');

let env: TestEnv;
let api: TestApi;
beforeAll(async () => {
  env = await TestEnv.create();
  api = await TestApi.start(env);
});
afterAll(async () => {
  await api?.close();
  await env?.close();
});

/** `METHOD /path` of every route fastify registered, from its route tree (HEAD, which fastify adds to each GET, left out). */
async function registeredRoutes(): Promise<string[]> {
  const app: FastifyInstance = buildApiServer({
    client: env.client,
    taskQueue: env.taskQueue,
    auth: { token: 'x'.repeat(16) },
    defaults: { tools: [] },
    // With a codec, so the codec routes are there too.
    codec: new AesGcmPayloadCodec([{ id: 'k', key: randomBytes(32) }]),
  });
  await app.ready();
  const tree = app.printRoutes({ commonPrefix: false });
  await app.close();
  const routes: string[] = [];
  const prefixes: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│├└─ ]*)(\S+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (match === null) continue;
    const depth = match[1]!.length / 4;
    prefixes.length = depth;
    prefixes.push(match[2]!);
    for (const method of (match[3] ?? '').split(', ').filter((name) => name !== '' && name !== 'HEAD'))
      routes.push(`${method} ${prefixes.join('')}`);
  }
  return routes.sort();
}

function documentedOperations(): string[] {
  return Object.entries(document.paths as Record<string, Record<string, unknown>>)
    .flatMap(([url, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${url}`))
    .sort();
}

/** A validator of the document's component `id`, by the JSON Schema 2020-12 the document's schemas are written in. */
function componentValidator(id: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(document, 'openapi.json');
  const validate = ajv.getSchema(`openapi.json#/components/schemas/${id}`);
  if (validate === undefined) throw new Error(`no component ${id}`);
  return (value: unknown) => {
    const valid = validate(value) as boolean;
    return { valid, errors: validate.errors };
  };
}

describe('the OpenAPI document', () => {
  test('has an operation for every route fastify registered, and no operation no route serves', async () => {
    const routes = (await registeredRoutes()).map((route) => {
      const [method, url] = route.split(' ');
      return `${method} ${openApiPath(url!)}`;
    });
    const operations = documentedOperations();

    expect({ routesWithoutAnOperation: routes.filter((route) => !operations.includes(route)) }).toEqual({
      routesWithoutAnOperation: [],
    });
    expect({ operationsWithoutARoute: operations.filter((operation) => !routes.includes(operation)) }).toEqual({
      operationsWithoutARoute: [],
    });
    expect(routes.length).toBeGreaterThanOrEqual(18);
  });

  test('is a valid OpenAPI 3.1 document', () => {
    // The validator is an ES module, which jest's CommonJS runtime cannot load: Node (this test's own) runs it.
    const script = `
      const { Validator } = require('@seriousme/openapi-schema-validator');
      const validator = new Validator();
      validator.validate(JSON.parse(require('node:fs').readFileSync(0, 'utf8'))).then((result) =>
        console.log(JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors ?? null })));`;
    const result = JSON.parse(
      execFileSync(process.execPath, ['-e', script], { cwd: root, input: JSON.stringify(document), encoding: 'utf8' }),
    );

    expect(result).toEqual({ valid: true, version: '3.1', errors: null });
  });

  test('is what GET /openapi.json serves, without a token', async () => {
    const served = await api.request('GET', '/openapi.json', undefined, { authorization: '' });

    expect(served.status).toBe(200);
    expect(served.body).toEqual(JSON.parse(JSON.stringify(document)));
  });

  test('is what docs/openapi.json holds (npm run docs:openapi writes it anew)', () => {
    expect(readFileSync(path.join(root, 'docs/openapi.json'), 'utf8')).toBe(openApiDocumentText());
  });

  test("lists the error catalogue's codes, each route's under its status", () => {
    const codes = document.components.schemas.ErrorResponse.properties.error.properties.code.anyOf;
    expect(codes.map((code: Json) => code.const)).toEqual(API_ERROR_CODE_NAMES);
    expect(codes[0].description).toBe(
      `${API_ERROR_CODES.unauthorized.status}: ${API_ERROR_CODES.unauthorized.meaning}`,
    );
    const notFound = document.paths['/runs/{run_id}'].get.responses['404'];
    expect(notFound.content['application/json'].schema.allOf[1].properties.error.properties.code.enum).toEqual([
      'run_not_found',
    ]);
    expect(document.paths['/healthz'].get.responses['401']).toBeUndefined();
    expect(document.paths['/runs'].post.responses['401']).toBeDefined();
  });
});

describe('real requests and answers fit the document', () => {
  test('a run started with a body the document accepts; its start, state, result and list answers fit their schemas', async () => {
    const model = env.scenario([{ content: 'Hello there.' }]);
    const body = {
      input: {
        model,
        tools: ['calculator'],
        message: 'say hello',
        stopWhen: { any: [{ maxIterations: 3 }, { textMention: 'bye' }] },
        timeout: '5m',
      },
    };
    expect(componentValidator('StartRunRequest')(body)).toEqual({ valid: true, errors: null });

    const started = await api.post('/runs', body);
    expect(started.status).toBe(202);
    expect(componentValidator('RunStartedResponse')(started.body)).toEqual({ valid: true, errors: null });
    const runPath = `/runs/${encodeURIComponent(started.body.run_id)}`;

    const result = await waitFor(
      () => api.get(`${runPath}/result`),
      (answer) => answer.status === 200,
    );
    expect(result.body).toMatchObject({ outcome: 'completed', result: { response: 'Hello there.' } });
    expect(componentValidator('RunResultResponse')(result.body)).toEqual({ valid: true, errors: null });

    const state = await api.get(runPath);
    expect(state.status).toBe(200);
    expect(componentValidator('RunStateResponse')(state.body)).toEqual({ valid: true, errors: null });

    const list = await api.get('/runs?limit=5');
    expect(list.status).toBe(200);
    expect(componentValidator('RunListResponse')(list.body)).toEqual({ valid: true, errors: null });

    const page = await api.get(`${runPath}/messages?limit=2`);
    expect(page.status).toBe(200);
    expect(componentValidator('MessagePageResponse')(page.body)).toEqual({ valid: true, errors: null });
  });

  test('a body the route refuses for an unknown field, the document refuses too; the error answer fits ErrorResponse', async () => {
    const body = { input: { tools: [], message: 'hi' }, priority: 'high' };
    expect(componentValidator('StartRunRequest')(body).valid).toBe(false);

    const refused = await api.post('/runs', body);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_body');
    expect(componentValidator('ErrorResponse')(refused.body)).toEqual({ valid: true, errors: null });
  });

  test("a chat body: the document and the route's schema accept the same body, and refuse the same bad context_id", () => {
    const body = {
      context_id: 'openapi-check',
      message: 'hello',
      terminating_config: { tool_ids: ['finish'] },
      tools: ['finish'],
    };
    expect(componentValidator('ChatRequest')(body)).toEqual({ valid: true, errors: null });
    expect(chatBody.safeParse(body).success).toBe(true);
    const bad = { ...body, context_id: 'has space' };
    expect(componentValidator('ChatRequest')(bad).valid).toBe(false);
    expect(chatBody.safeParse(bad).success).toBe(false);
  });
});

describe('docs/reference/http-api.md', () => {
  test('lists every error code with its status and meaning, from the catalogue', () => {
    const page = readFileSync(path.join(root, 'docs/reference/http-api.md'), 'utf8').split('\n');
    const table = [
      '| code | status | when |',
      '| --- | --- | --- |',
      ...API_ERROR_CODE_NAMES.map(
        (code) => `| \`${code}\` | ${API_ERROR_CODES[code].status} | ${API_ERROR_CODES[code].meaning} |`,
      ),
    ];
    const start = page.indexOf(table[0]!);
    expect(start).toBeGreaterThan(-1);
    expect(page.slice(start, start + table.length)).toEqual(table);
  });
});
