import { z } from 'zod';
import { API_ERROR_CODES, type ApiErrorCode } from '../../http/error-codes';
import { agentResultSchema, generatedMessageSchema, terminationReasonSchema } from '../../shared/agent-result';
import { chatMessageSchema, inputChatMessageSchema, messageMetaSchema, usageSchema } from '../../shared/messages';
import { runEventSchema } from '../../shared/run-events';
import { errorResponse, runOutcomeSchema } from '../response-schemas';
import { startRunInputSchema } from '../schemas';
import { stopConditionFormSchemas, stopConditionSchema } from '../../shared/stop-conditions-schema';
import { scopeOfRoute } from '../scopes';
import { API_OPERATIONS, type ApiOperation, type OperationAnswer } from './operations';

/**
 * The API's OpenAPI 3.1 document, built by `z.toJSONSchema` from the routes' zod schemas (requests as input, answers
 * as output); every named schema is a `$ref` component.
 */

/** A JSON value of the document. */
type Json = Record<string, unknown>;

const COMPONENT = (id: string) => `#/components/schemas/${id}`;

/** Codes any route may answer, whatever it does. */
const EVERY_ROUTE: ApiErrorCode[] = ['bad_request', 'internal_error'];
/** Codes of a route that reads a JSON body. */
const EVERY_BODY: ApiErrorCode[] = ['invalid_json', 'invalid_body', 'body_too_large', 'unsupported_media_type'];

/** Shapes several answers hold, each a component of its own. */
const SHARED_ANSWER_SCHEMAS: Record<string, z.ZodType> = {
  ChatMessage: chatMessageSchema,
  MessageMeta: messageMetaSchema,
  Usage: usageSchema,
  AgentResult: agentResultSchema,
  TerminationReason: terminationReasonSchema,
  GeneratedMessage: generatedMessageSchema,
  RunEvent: runEventSchema,
  RunOutcome: runOutcomeSchema,
};

let built: Json | undefined;

/** The document (built once; it depends on nothing but the code). */
export function openApiDocument(): Json {
  built ??= buildDocument(API_OPERATIONS);
  return built;
}

/** The document of `operations`. */
function buildDocument(operations: readonly ApiOperation[]): Json {
  const requestSchemas = z.registry<{ id: string }>();
  const answerSchemas = z.registry<{ id: string }>();
  // `stopWhen` is a recursive tree checked by a custom schema: described by the strict forms it checks each node against.
  requestSchemas.add(stopConditionSchema, { id: 'StopCondition' });
  requestSchemas.add(z.union(Object.values(stopConditionFormSchemas()) as [z.ZodType, z.ZodType]), {
    id: 'StopConditionForm',
  });
  answerSchemas.add(errorResponse, { id: 'ErrorResponse' });
  // Shapes the answers repeat, named once.
  for (const [id, schema] of Object.entries(SHARED_ANSWER_SCHEMAS)) answerSchemas.add(schema, { id });
  requestSchemas.add(inputChatMessageSchema, { id: 'InputChatMessage' });
  for (const operation of operations) {
    if (operation.body !== undefined) addOnce(requestSchemas, operation.body);
    for (const answer of Object.values(operation.answers))
      if (answer.json !== undefined) addOnce(answerSchemas, answer.json);
  }
  const components = {
    ...convertRegistry(requestSchemas, 'input'),
    ...convertRegistry(answerSchemas, 'output'),
  };

  const paths: Record<string, Record<string, Json>> = {};
  for (const operation of operations) {
    const path = openApiPath(operation.url);
    paths[path] ??= {};
    paths[path][operation.method.toLowerCase()] = operationObject(operation);
  }

  return {
    openapi: '3.1.1',
    info: {
      title: 'agent-runner HTTP API',
      version: '1',
      description:
        'Chat turns on durable conversations, and agent runs to start, follow (Server-Sent Events), steer and list. ' +
        'Every error is `{ "error": { "code", "message", "details"? } }`; the codes are listed in `ErrorResponse`.',
    },
    tags: [
      { name: 'chat', description: 'One turn on a durable conversation, answered in the chat response format.' },
      { name: 'conversations', description: 'The conversation behind the chat endpoints.' },
      { name: 'runs', description: 'Runs without a conversation.' },
      { name: 'health', description: 'Probes, open without a token.' },
      { name: 'document', description: 'This document, open without a token.' },
      {
        name: 'codec',
        description:
          "Temporal's remote codec protocol, for the CLI's `--codec-endpoint` (only when the API holds codec keys).",
      },
    ],
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A principal’s token: `AGENT_API_TOKEN` (every scope) or one of `AGENT_API_PRINCIPALS_FILE` (its scopes; each operation names the scope it needs as `x-required-scope`). Off only with `AGENT_API_AUTH=none`.',
        },
      },
    },
  };
}

/** `/runs/:run_id` as OpenAPI writes it: `/runs/{run_id}`. */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function addOnce(registry: z.core.$ZodRegistry<{ id: string }>, named: { id: string; schema: z.ZodType }): void {
  const existing = registry.get(named.schema);
  if (existing !== undefined && existing.id !== named.id)
    throw new Error(`one schema under two names: ${existing.id} and ${named.id}`);
  if (existing === undefined) registry.add(named.schema, { id: named.id });
}

function operationObject(operation: ApiOperation): Json {
  const scope = scopeOfRoute(operation.method, operation.url) ?? undefined;
  const parameters = [
    ...objectParameters(operation.params, 'path'),
    ...objectParameters(operation.query, 'query'),
    ...Object.entries(operation.headers ?? {}).map(([name, header]) => ({
      name,
      in: 'header',
      required: false,
      description: header.description,
      schema: jsonSchemaOf(header.schema, 'input'),
    })),
  ];
  const codes: ApiErrorCode[] = [
    ...(operation.open ? [] : (['unauthorized', 'forbidden'] as const)),
    ...EVERY_ROUTE,
    ...(operation.body === undefined ? [] : EVERY_BODY),
    ...(operation.query === undefined ? [] : (['invalid_body'] as const)),
    ...operation.errors,
  ];
  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description === undefined && scope === undefined
      ? {}
      : {
          description: [
            operation.description,
            scope === undefined ? undefined : `Needs the scope \`${scope}\` (or \`admin\`).`,
          ]
            .filter((part) => part !== undefined)
            .join('\n\n'),
        }),
    ...(operation.open ? { security: [] } : {}),
    ...(scope === undefined ? {} : { 'x-required-scope': scope }),
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(operation.body === undefined
      ? {}
      : {
          requestBody: {
            // A route reads a missing body as `{}`: the body is required only when `{}` does not fit.
            required: !operation.body.schema.safeParse({}).success,
            content: { 'application/json': { schema: { $ref: COMPONENT(operation.body.id) } } },
          },
        }),
    responses: { ...successAnswers(operation.answers), ...errorAnswers(codes) },
  };
}

function successAnswers(answers: Record<number, OperationAnswer>): Json {
  const result: Json = {};
  for (const [status, answer] of Object.entries(answers)) {
    const content: Json = {};
    if (answer.json !== undefined) content['application/json'] = { schema: { $ref: COMPONENT(answer.json.id) } };
    if (answer.eventStream !== undefined)
      content['text/event-stream'] = { schema: { type: 'string', description: answer.eventStream } };
    result[status] = {
      description: answer.description,
      ...(answer.headers === undefined
        ? {}
        : {
            headers: Object.fromEntries(
              Object.entries(answer.headers).map(([name, description]) => [
                name,
                { description, schema: { type: 'string' } },
              ]),
            ),
          }),
      ...(Object.keys(content).length === 0 ? {} : { content }),
    };
  }
  return result;
}

/** One answer per status, listing the codes answered with it; the body's `code` is one of them. */
function errorAnswers(codes: readonly ApiErrorCode[]): Json {
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of new Set(codes)) {
    const { status } = API_ERROR_CODES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const result: Json = {};
  for (const status of [...byStatus.keys()].sort()) {
    const answered = byStatus.get(status)!;
    result[String(status)] = {
      // What each code means is said once, in `ErrorResponse`.
      description: answered.map((code) => `\`${code}\``).join(', '),
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: COMPONENT('ErrorResponse') },
              { type: 'object', properties: { error: { type: 'object', properties: { code: { enum: answered } } } } },
            ],
          },
        },
      },
    };
  }
  return result;
}

/** Each property of a zod object as an OpenAPI parameter. */
function objectParameters(schema: z.ZodObject | undefined, where: 'path' | 'query'): Json[] {
  if (schema === undefined) return [];
  const json = jsonSchemaOf(schema, 'input') as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property as { description?: string };
    return {
      name,
      in: where,
      required: where === 'path' || (json.required ?? []).includes(name),
      ...(description === undefined ? {} : { description }),
      schema: rest,
    };
  });
}

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Json {
  return tidy(z.toJSONSchema(schema, { io, target: 'draft-2020-12', override: adjust }) as Json);
}

function convertRegistry(registry: z.core.$ZodRegistry<{ id: string }>, io: 'input' | 'output'): Record<string, Json> {
  const { schemas } = z.toJSONSchema(registry, {
    io,
    target: 'draft-2020-12',
    uri: COMPONENT,
    override: adjust,
    // The one custom schema, inside `stopConditionSchema`'s lazy: its component is the union of the forms. Any other throws.
    unrepresentable: (context) =>
      isStopConditionCheck(context.zodSchema) ? { $ref: COMPONENT('StopConditionForm') } : undefined,
  });
  if ('__shared' in schemas) throw new Error('a schema the registry does not name was extracted; name it');
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, tidy(schema as Json)]));
}

/** Whether `schema` is the custom check `stopConditionSchema` is lazily made of (zod reports it, or the schema it refines). */
function isStopConditionCheck(schema: z.core.$ZodType): boolean {
  const check = (stopConditionSchema as unknown as z.ZodLazy)._zod.innerType;
  return schema === check || schema === check._zod.parent;
}

/** What the document says beyond the zod schemas' own JSON Schema. */
function adjust(context: {
  zodSchema: z.core.$ZodType;
  jsonSchema: { minimum?: number; maximum?: number; required?: string[] };
}): void {
  dropSafeIntegerBounds(context);
  // `POST /runs` fills a missing `tools` with AGENT_TOOLS before it checks the input.
  if (context.zodSchema === startRunInputSchema)
    context.jsonSchema.required = context.jsonSchema.required?.filter((field) => field !== 'tools');
}

/** zod writes every integer's bounds as ±(2^53 - 1), JavaScript's safe integers: noise to a reader of the document. */
function dropSafeIntegerBounds(context: { jsonSchema: { minimum?: number; maximum?: number } }): void {
  if (context.jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete context.jsonSchema.minimum;
  if (context.jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete context.jsonSchema.maximum;
}

/** A component or parameter schema without `$schema` and `$id` (the document's dialect is OpenAPI 3.1's). */
function tidy(schema: Json): Json {
  const rest = { ...schema };
  delete rest.$schema;
  delete rest.$id;
  return rest;
}

/** The document as docs/openapi.json holds it: two-space indents, a final newline. */
export function openApiDocumentText(): string {
  return `${JSON.stringify(openApiDocument(), null, 2)}\n`;
}
