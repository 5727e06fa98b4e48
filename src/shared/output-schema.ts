import { Validator, type OutputUnit, type Schema, type SchemaDraft } from '@cfworker/json-schema';
import { z } from 'zod';
import { builtOnce } from './built-once';
import { OUTPUT_DEFAULTS } from './defaults/output';
import { jsonBytes } from './payload-limits';

/**
 * Structured output: the input's `output`, its schema's check, the offer to the model and the answer's check, with
 * `@cfworker/json-schema`, which compiles nothing, so it runs in the sandbox and replays the same verdict.
 */

/** A tool name as providers take it: letters, digits, `_` and `-`, at most 64 characters. */
const ANSWER_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** How the model is asked for the answer. */
export type OutputMode = 'tool' | 'response_format';

/** The run input's `output`. */
export const outputSpecSchema = builtOnce('outputSchema.outputSpec', () =>
  z.strictObject({
    /**
     * The JSON Schema the answer must validate against (drafts 4, 7, 2019-09 and 2020-12, by its `$schema`; 2020-12
     * without one). A schema whose root is not `type: "object"` is offered to the model wrapped as
     * `{ value: <schema> }`; the answer is then the `value`. At most 64 KiB; only local `$ref`s (`#/$defs/...`).
     */
    schema: z.record(z.string(), z.unknown()).superRefine((schema, context) => {
      for (const problem of schemaProblems(schema)) context.addIssue({ code: 'custom', message: problem });
    }),
    /** The answer tool's name in `tool` mode, and the `json_schema` name in `response_format` mode. @default 'final_answer' */
    name: z
      .string()
      .regex(ANSWER_NAME, 'letters, digits, _ and -, at most 64 characters')
      .default(OUTPUT_DEFAULTS.toolName),
    /**
     * `tool`: the model is offered a tool whose parameters are the schema and answers by calling it (any
     * OpenAI-compatible server with tools). `response_format`: the request asks for
     * `response_format: { type: 'json_schema' }` and the model's text answer is the JSON (servers that support it).
     * @default 'tool'
     */
    mode: z.enum(['tool', 'response_format']).default(OUTPUT_DEFAULTS.mode),
    /**
     * Answers that are not a valid final answer (a text answer in `tool` mode, JSON that does not validate, a
     * terminating tool's output that does not) sent back to the model with the problems, in all; one more fails
     * the run with `Output.Invalid`. @default 3
     */
    maxCorrections: z.number().int().nonnegative().default(OUTPUT_DEFAULTS.maxCorrections),
  }),
);
/** The run input's `output`, as a caller writes it. */
export type OutputSpecInput = z.input<typeof outputSpecSchema>;

/** JSON Schema's instance types. */
const TYPE_NAMES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);
/** Keywords whose value is one subschema. */
const ONE_SCHEMA = [
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
] as const;
/** Keywords whose value is an array of subschemas. */
const SCHEMA_ARRAY = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;
/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'] as const;
/** Keywords whose value is a whole number, 0 or more. */
const COUNTS = [
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minContains',
  'maxContains',
] as const;

/**
 * What is wrong with `schema` as an output schema, one line each; none when it can be used. Checks its size, each
 * subschema's keywords that the validator reads (types, counts, patterns that compile, `required` names), that every
 * `$ref` is local and resolves, and that the validator accepts it. Never throws; bounded by
 * {@link OUTPUT_DEFAULTS.schemaBytes} and {@link OUTPUT_DEFAULTS.subschemas}.
 */
export function schemaProblems(schema: Record<string, unknown>): string[] {
  let bytes: number;
  try {
    bytes = jsonBytes(schema);
  } catch {
    return ['schema: not JSON'];
  }
  if (bytes > OUTPUT_DEFAULTS.schemaBytes)
    return [`schema: ${bytes} bytes as JSON; an output schema may have at most ${OUTPUT_DEFAULTS.schemaBytes}`];
  const problems: string[] = [];
  const refs: { at: string; ref: string }[] = [];
  const anchors = new Set<string>();
  const stack: { value: unknown; at: string }[] = [{ value: schema, at: '#' }];
  let seen = 0;
  while (stack.length > 0 && problems.length < OUTPUT_DEFAULTS.problems) {
    const { value, at } = stack.pop() as { value: unknown; at: string };
    seen += 1;
    if (seen > OUTPUT_DEFAULTS.subschemas) {
      problems.push(`schema: more than ${OUTPUT_DEFAULTS.subschemas} subschemas`);
      break;
    }
    if (typeof value === 'boolean') continue;
    if (!isObject(value)) {
      problems.push(`schema ${at}: a subschema must be an object or a boolean`);
      continue;
    }
    problems.push(...keywordProblems(value, at));
    if (typeof value.$ref === 'string') refs.push({ at, ref: value.$ref });
    if (typeof value.$anchor === 'string') anchors.add(value.$anchor);
    for (const key of ONE_SCHEMA) if (key in value) stack.push({ value: value[key], at: `${at}/${key}` });
    if ('items' in value) {
      const items = value.items;
      if (Array.isArray(items)) items.forEach((item, index) => stack.push({ value: item, at: `${at}/items/${index}` }));
      else stack.push({ value: items, at: `${at}/items` });
    }
    for (const key of SCHEMA_ARRAY) {
      if (!(key in value)) continue;
      const members = value[key];
      if (!Array.isArray(members) || members.length === 0)
        problems.push(`schema ${at}/${key}: expected a non-empty array`);
      else members.forEach((member, index) => stack.push({ value: member, at: `${at}/${key}/${index}` }));
    }
    for (const key of SCHEMA_MAP) {
      if (!(key in value)) continue;
      const members = value[key];
      if (!isObject(members)) problems.push(`schema ${at}/${key}: expected an object of subschemas`);
      else
        for (const [name, member] of Object.entries(members)) stack.push({ value: member, at: `${at}/${key}/${name}` });
    }
  }
  for (const { at, ref } of refs) {
    if (problems.length >= OUTPUT_DEFAULTS.problems) break;
    if (!refResolves(schema, ref, anchors))
      problems.push(
        `schema ${at}/$ref: "${cut(ref)}" does not resolve; only local references (#, #/$defs/..., #anchor) are followed`,
      );
  }
  if (problems.length > 0) return problems.map(cut);
  try {
    validatorFor(schema).validate(null);
  } catch (error) {
    return [cut(`schema: the validator refuses it (${error instanceof Error ? error.message : String(error)})`)];
  }
  return [];
}

/** Problems of one subschema's own keywords. */
function keywordProblems(value: Record<string, unknown>, at: string): string[] {
  const problems: string[] = [];
  if ('type' in value) {
    const types = Array.isArray(value.type) ? value.type : [value.type];
    if (types.length === 0 || !types.every((type) => typeof type === 'string' && TYPE_NAMES.has(type)))
      problems.push(`schema ${at}/type: expected one of ${[...TYPE_NAMES].join(', ')}, or an array of them`);
  }
  if (
    'required' in value &&
    !(Array.isArray(value.required) && value.required.every((name) => typeof name === 'string'))
  )
    problems.push(`schema ${at}/required: expected an array of property names`);
  if ('enum' in value && !Array.isArray(value.enum)) problems.push(`schema ${at}/enum: expected an array`);
  for (const key of COUNTS) {
    if (key in value && !(Number.isInteger(value[key]) && (value[key] as number) >= 0))
      problems.push(`schema ${at}/${key}: expected a whole number, 0 or more`);
  }
  for (const key of ['minimum', 'maximum'] as const) {
    if (key in value && typeof value[key] !== 'number') problems.push(`schema ${at}/${key}: expected a number`);
  }
  if ('multipleOf' in value && !(typeof value.multipleOf === 'number' && value.multipleOf > 0))
    problems.push(`schema ${at}/multipleOf: expected a number above 0`);
  const patterns = [
    ...('pattern' in value ? [{ key: 'pattern', source: value.pattern }] : []),
    ...(isObject(value.patternProperties)
      ? Object.keys(value.patternProperties).map((source) => ({ key: 'patternProperties', source }))
      : []),
  ];
  for (const { key, source } of patterns) {
    if (typeof source !== 'string') {
      problems.push(`schema ${at}/${key}: expected a regular expression as text`);
      continue;
    }
    try {
      new RegExp(source, 'u');
    } catch {
      problems.push(`schema ${at}/${key}: "${cut(source)}" is not a regular expression`);
    }
  }
  if ('$ref' in value && typeof value.$ref !== 'string') problems.push(`schema ${at}/$ref: expected a text`);
  return problems;
}

/** Whether a `$ref` is local and points at something in `schema`. */
function refResolves(schema: Record<string, unknown>, ref: string, anchors: ReadonlySet<string>): boolean {
  if (ref === '#') return true;
  if (!ref.startsWith('#')) return false;
  if (!ref.startsWith('#/')) return anchors.has(decodeURIComponent(ref.slice(1)));
  let target: unknown = schema;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(target) && /^\d+$/.test(key)) target = target[Number(key)];
    else if (isObject(target) && Object.hasOwn(target, key)) target = target[key];
    else return false;
  }
  return isObject(target) || typeof target === 'boolean';
}

/** The draft `schema` names in `$schema`; 2020-12 when it names none. */
function draftOf(schema: Record<string, unknown>): SchemaDraft {
  const named = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (named.includes('draft-04')) return '4';
  if (named.includes('draft-07') || named.includes('draft-06')) return '7';
  if (named.includes('2019-09')) return '2019-09';
  return '2020-12';
}

/** A validator of `schema`, on a copy of it: the validator marks the schema objects it reads. */
function validatorFor(schema: Record<string, unknown>): Validator {
  const copy = JSON.parse(JSON.stringify(schema)) as Schema;
  return new Validator(copy, draftOf(schema), false);
}

/** Whether the schema's root is an object schema, offered to the model as it is; any other is wrapped. */
export function isObjectSchema(schema: Record<string, unknown>): boolean {
  return schema.type === 'object';
}

/**
 * What the model is offered: the schema itself when its root is an object, else `{ value: <schema> }` (its `$defs`
 * and `definitions` kept at the root, where its references look for them). `$schema` is left out: some servers
 * refuse it in tool parameters.
 */
export function answerParameters(schema: Record<string, unknown>): Record<string, unknown> {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { $schema, ...rest } = schema;
  if (isObjectSchema(schema)) return rest;
  const { $defs, definitions, ...inner } = rest;
  return {
    type: 'object',
    properties: { [OUTPUT_DEFAULTS.wrapKey]: inner },
    required: [OUTPUT_DEFAULTS.wrapKey],
    additionalProperties: false,
    ...($defs === undefined ? {} : { $defs }),
    ...(definitions === undefined ? {} : { definitions }),
  };
}

/** An answer checked: its value, or what is wrong with it. */
export type AnswerCheck = { ok: true; value: unknown } | { ok: false; problems: string[] };

/**
 * Checks the model's answer, JSON text as the model wrote it: parsed, unwrapped when the schema was wrapped
 * (`wrapped`), and validated against `schema`. Deterministic; never throws.
 */
export function checkAnswerText(schema: Record<string, unknown>, text: string, wrapped: boolean): AnswerCheck {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [cut(`not JSON (${error instanceof Error ? error.message : String(error)})`)] };
  }
  if (!wrapped) return checkAnswer(schema, parsed);
  if (!isObject(parsed) || !Object.hasOwn(parsed, OUTPUT_DEFAULTS.wrapKey))
    return { ok: false, problems: [`expected an object with the answer in "${OUTPUT_DEFAULTS.wrapKey}"`] };
  return checkAnswer(schema, parsed[OUTPUT_DEFAULTS.wrapKey]);
}

/** Keywords whose error only says that something below failed (or, `false`, repeats `additionalProperties`'s). */
const SUMMARY_KEYWORDS = new Set([
  'properties',
  'patternProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  'allOf',
  '$ref',
  '$recursiveRef',
  'false',
]);

/** Validates `value` against `schema`: the value, or the problems (the first {@link OUTPUT_DEFAULTS.problems}). */
function checkAnswer(schema: Record<string, unknown>, value: unknown): AnswerCheck {
  let errors: OutputUnit[];
  try {
    const result = validatorFor(schema).validate(value);
    if (result.valid) return { ok: true, value };
    errors = result.errors;
  } catch (error) {
    return {
      ok: false,
      problems: [cut(`could not be checked (${error instanceof Error ? error.message : String(error)})`)],
    };
  }
  // The validator reports each failing level ("property x does not match"); the problems below them say what to fix.
  const specific = errors.filter((unit) => !SUMMARY_KEYWORDS.has(unit.keyword));
  const lines = [
    ...new Set((specific.length > 0 ? specific : errors).map((unit) => `${unit.instanceLocation}: ${unit.error}`)),
  ];
  const shown = lines.slice(0, OUTPUT_DEFAULTS.problems).map(cut);
  const more = lines.length - shown.length;
  return { ok: false, problems: more > 0 ? [...shown, `... and ${more} more`] : shown };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function cut(text: string): string {
  return text.length <= OUTPUT_DEFAULTS.problemChars ? text : `${text.slice(0, OUTPUT_DEFAULTS.problemChars - 1)}…`;
}
