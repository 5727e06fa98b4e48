import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command, Option } from 'commander';
import { z } from 'zod';
import { HTTP_STATUS_OF } from '../src/http/errors';
import { EXIT_CODES_HELP, EXIT_CODE_OF_FAILURE } from '../src/cli/exit-codes';
import { createProgram } from '../src/cli/program';
import { agentInputSchema } from '../src/shared/agent-input';
import { FAILURE_CATALOGUE, FAILURE_TYPES } from '../src/shared/failure-catalogue';
import { MODEL_STREAM_EVENT_TYPES } from '../src/shared/model-stream-events';
import { runEventSchema } from '../src/shared/run-events';

/**
 * `npm run docs:reference`: writes the reference tables of docs/ from the
 * code, between `<!-- generated: <name> -->` and `<!-- end generated -->`.
 * Columns the code holds (field names, types, defaults, event fields, failure
 * types, commands and options) are rebuilt from it; a column a person writes
 * (what a field means, when an event happens) is kept from the page, by the
 * row's first cell. A row the code gained gets {@link TO_DESCRIBE} there, and
 * test/unit/docs-reference.test.ts fails until someone writes it, as it fails
 * when a committed table differs from what this script would write.
 */

/** The repository's root. */
export const ROOT = path.join(__dirname, '..');

/** What a new row's human-written cell says until someone writes it. */
export const TO_DESCRIBE = '(to describe)';

/** The command that rewrites the tables; failures name it. */
export const REGENERATE_COMMAND = 'npm run docs:reference';

/** One generated table: its name in the markers, and how to build it from the block the page holds now. */
interface GeneratedTable {
  name: string;
  /** The table's lines; `current` is what the page holds between the markers (for human-written cells). */
  render(current: readonly string[]): string[];
}

/** A page of docs/ with the generated tables it holds, in any order. */
export interface GeneratedPage {
  /** Relative to the repository's root. */
  page: string;
  tables: readonly GeneratedTable[];
}

// ---------------------------------------------------------------- tables

/** A markdown row; a `|` inside a cell is escaped. */
function row(cells: readonly string[]): string {
  return `| ${cells.map((cell) => cell.replace(/(?<!\\)\|/g, '\\|')).join(' | ')} |`;
}

/** The cells of a markdown row, `\|` kept inside its cell. */
function cellsOf(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/** `header` and its separator. */
function head(header: readonly string[]): string[] {
  return [row(header), row(header.map(() => '---'))];
}

/**
 * The human-written cells of the block now on the page, by the row's first
 * cell: `columns` are their indexes.
 */
function writtenCells(current: readonly string[], columns: readonly number[]): Map<string, string[]> {
  const written = new Map<string, string[]>();
  for (const line of current.filter((candidate) => candidate.startsWith('|')).slice(2)) {
    const cells = cellsOf(line);
    written.set(
      cells[0] ?? '',
      columns.map((column) => cells[column] ?? TO_DESCRIBE),
    );
  }
  return written;
}

/** Text from the code as a cell shows it: `<reason>` would read as an HTML tag. */
function text(words: string): string {
  return words.replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Code, as a markdown cell shows it. */
function code(text: string): string {
  return `\`${text}\``;
}

/** The failure catalogue with each type's HTTP answer (a chat turn) and CLI exit code: every column from the code. */
const failureTypesTable: GeneratedTable = {
  name: 'failure-types',
  render: () => [
    ...head(['type', 'raised by', 'when', 'HTTP answer (chat turn)', 'CLI exit']),
    ...FAILURE_TYPES.map((type) => {
      const { raisedBy, when } = FAILURE_CATALOGUE[type];
      const { status, code: errorCode } = HTTP_STATUS_OF[type];
      return `| \`${type}\` | ${raisedBy} | ${when} | ${status} \`${errorCode}\` | ${EXIT_CODE_OF_FAILURE[type]} |`;
    }),
  ],
};

/** The part of a JSON Schema the tables read. */
interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  maxItems?: number;
  additionalProperties?: JsonSchema | boolean;
  $ref?: string;
}

/** Bounds a schema sets, in words: `1–1024 characters`, `≥ 1`, `at most 128`. */
function boundsOf(schema: JsonSchema): string {
  const range = (low: number | undefined, high: number | undefined, unit: string): string => {
    // zod's `.int()` bounds every integer by the safe range; only the bounds a schema sets say something.
    const [from, to] = [low, high].map((bound) =>
      bound === undefined || Math.abs(bound) >= Number.MAX_SAFE_INTEGER ? undefined : bound.toLocaleString('en-US'),
    );
    if (from !== undefined && to !== undefined) return `${from}–${to}${unit}`;
    if (to !== undefined) return `≤ ${to}${unit}`;
    if (from !== undefined) return `≥ ${from}${unit}`;
    return '';
  };
  const low =
    schema.minimum ??
    (schema.exclusiveMinimum === undefined ? undefined : schema.exclusiveMinimum + (schema.type === 'integer' ? 1 : 0));
  const exclusive = schema.exclusiveMinimum !== undefined && schema.type !== 'integer';
  const numbers = exclusive ? `> ${schema.exclusiveMinimum}` : range(low, schema.maximum, '');
  return [
    range(schema.minLength, schema.maxLength, ' chars'),
    numbers,
    range(schema.minItems, schema.maxItems, ' items'),
  ]
    .filter(Boolean)
    .join(', ');
}

/** A schema's type as a reader of the input writes it: `string`, `integer`, `"deny" | "fail"`, `string[]`, `object`. */
function typeOf(schema: JsonSchema): string {
  const bare = bareTypeOf(schema);
  const bounds = boundsOf(schema);
  return bounds === '' ? bare : `${bare} (${bounds})`;
}

function bareTypeOf(schema: JsonSchema): string {
  if (schema.$ref !== undefined) return 'condition tree';
  // A schema JSON Schema cannot state (a recursive tree checked by the runner) comes out empty.
  if (Object.keys(schema).length === 0) return 'JSON';
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum !== undefined) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  const members = schema.anyOf ?? schema.oneOf;
  if (members !== undefined) {
    const types = [...new Set(members.map(typeOf))];
    return types.length > 4 ? 'condition tree' : types.join(' | ');
  }
  if (schema.type === 'array') return `${schema.items === undefined ? 'unknown' : itemTypeOf(schema.items)}[]`;
  if (schema.type === 'object' && schema.properties === undefined && typeof schema.additionalProperties === 'object')
    return 'object (by name)';
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  return schema.type ?? 'any';
}

/** An array's items: a union of objects is a message, an object is an object. */
function itemTypeOf(items: JsonSchema): string {
  const type = bareTypeOf(items);
  return type.includes(' | ') ? `(${type})` : type;
}

/** Objects whose fields the input table lists one by one (not the condition tree, messages or records). */
function fieldsOf(schema: JsonSchema): Record<string, JsonSchema> | undefined {
  if (schema.type === 'object' && schema.properties !== undefined) return schema.properties;
  const members = schema.anyOf ?? schema.oneOf;
  const object = members?.length === 1 ? members[0] : undefined;
  return object === undefined ? undefined : fieldsOf(object);
}

/** Longest default a cell shows whole; a longer one (a default prompt) is cut, its whole text is in constants.ts. */
const DEFAULT_CELL_CHARS = 40;

/** `text`, cut to {@link DEFAULT_CELL_CHARS} with an ellipsis. */
function shortened(text: string): string {
  return text.length <= DEFAULT_CELL_CHARS ? text : `${text.slice(0, DEFAULT_CELL_CHARS)}…`;
}

/** Every field of the run's input, nested objects' fields as `parent.child`: name, type, required, default. */
function inputFields(): string[][] {
  const schema = z.toJSONSchema(agentInputSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const lines: string[][] = [];
  const walk = (object: JsonSchema, prefix: string): void => {
    const fields = fieldsOf(object) ?? {};
    const required = new Set(object.required ?? []);
    for (const [name, field] of Object.entries(fields)) {
      const dotted = `${prefix}${name}`;
      const nested = prefix === '' ? fieldsOf(field) : undefined;
      lines.push([
        code(dotted),
        nested === undefined ? code(typeOf(field)) : 'object',
        required.has(name) ? 'yes' : 'no',
        field.default === undefined ? '—' : code(shortened(JSON.stringify(field.default))),
      ]);
      if (nested !== undefined) walk(field, `${dotted}.`);
    }
  };
  walk(schema, '');
  return lines;
}

/** The run's input: field, type with its bounds, required, schema default (from the zod schema); what it means (written). */
const runInputTable: GeneratedTable = {
  name: 'run-input-fields',
  render(current) {
    const written = writtenCells(current, [4]);
    return [
      ...head(['field', 'type', 'required', 'default', 'meaning']),
      ...inputFields().map((cells) => row([...cells, ...(written.get(cells[0] ?? '') ?? [TO_DESCRIBE])])),
    ];
  },
};

/** The zod object schemas of the event log's union members, a `run-end` counted once with its variants. */
function eventVariants(): Map<string, z.ZodObject[]> {
  const variants = new Map<string, z.ZodObject[]>();
  const add = (member: z.ZodType): void => {
    if (member instanceof z.ZodDiscriminatedUnion) {
      for (const option of member.options as z.ZodType[]) add(option);
      return;
    }
    const object = member as z.ZodObject;
    const literal = object.shape.type as z.ZodLiteral<string>;
    const type = [...literal.values][0] as string;
    variants.set(type, [...(variants.get(type) ?? []), object]);
  };
  for (const member of runEventSchema.options as z.ZodType[]) add(member);
  return variants;
}

/** An event variant's fields besides the envelope (`seq`, `at`, `type`), `?` after an optional one. */
function eventFields(object: z.ZodObject): string {
  const fields = Object.entries(object.shape)
    .filter(([name]) => !['seq', 'at', 'type'].includes(name))
    .map(([name, field]) => `${code(name)}${(field as z.ZodType).safeParse(undefined).success ? '?' : ''}`);
  return fields.length === 0 ? '—' : fields.join(', ');
}

/** The event log: every type in the order of the union, with its fields (from the zod schema); when it happens (written). */
const runEventsTable: GeneratedTable = {
  name: 'run-events',
  render(current) {
    const written = writtenCells(current, [1]);
    return [
      ...head(['type', 'when', 'fields']),
      ...[...eventVariants()].map(([type, objects]) => {
        const key = code(type);
        return row([key, ...(written.get(key) ?? [TO_DESCRIBE]), objects.map(eventFields).join(', or ')]);
      }),
    ];
  },
};

/** The model stream's event types (from the code); what each is and its fields (written). */
const modelStreamEventsTable: GeneratedTable = {
  name: 'model-stream-events',
  render(current) {
    const written = writtenCells(current, [1, 2]);
    return [
      ...head(['type', 'what', 'fields']),
      ...MODEL_STREAM_EVENT_TYPES.map((type) =>
        row([code(type), ...(written.get(code(type)) ?? [TO_DESCRIBE, TO_DESCRIBE])]),
      ),
    ];
  },
};

/** The commands of `agent-runner`, as the program declares them. */
function cliCommands(): readonly Command[] {
  return createProgram(() => undefined).commands;
}

/** How a command is typed: its name, its aliases and its arguments. */
function usageOf(command: Command): string {
  const names = [command.name(), ...command.aliases()].join(' | ');
  const argumentsOf = command.registeredArguments.map((argument) => {
    const name = `${argument.name()}${argument.variadic ? '...' : ''}`;
    return argument.required ? `<${name}>` : `[${name}]`;
  });
  return [names, ...argumentsOf].join(' ');
}

/** The commands: how each is typed, and what it does (both from the program). */
const cliCommandsTable: GeneratedTable = {
  name: 'cli-commands',
  render: () => [
    ...head(['command', 'what it does']),
    ...cliCommands().map((command) => row([code(usageOf(command)), text(command.description())])),
  ],
};

/** An option's default as the help shows it, or `—`. */
function defaultOf(option: Option): string {
  return option.defaultValue === undefined ? '—' : code(JSON.stringify(option.defaultValue));
}

/** Every option of every command: its flags, what it does, its choices and default (all from the program). */
const cliOptionsTable: GeneratedTable = {
  name: 'cli-options',
  render: () => {
    // An option several commands share word for word is one row naming them all, in the order first met.
    const rows = new Map<string, { commands: string[]; cells: string[] }>();
    for (const command of cliCommands()) {
      for (const option of command.options) {
        const choices = option.argChoices === undefined ? '' : ` (one of: ${option.argChoices.join(', ')})`;
        const cells = [code(option.flags), text(`${option.description}${choices}`), defaultOf(option)];
        const key = cells.join('\u0000');
        const shared = rows.get(key);
        if (shared === undefined) rows.set(key, { commands: [command.name()], cells });
        else shared.commands.push(command.name());
      }
    }
    return [
      ...head(['command', 'option', 'what it does', 'default']),
      ...[...rows.values()].map(({ commands, cells }) => row([commands.join(', '), ...cells])),
    ];
  },
};

/** The exit codes, as every `--help` lists them. */
const cliExitCodesTable: GeneratedTable = {
  name: 'cli-exit-codes',
  render: () => [
    ...head(['exit code', 'meaning']),
    ...EXIT_CODES_HELP.split('\n')
      .slice(1)
      .map((line) => {
        const match = /^\s*(\d+)\s+(.*)$/.exec(line);
        if (match === null) throw new Error(`EXIT_CODES_HELP has a line that is not "<code> <meaning>": ${line}`);
        return row([match[1] ?? '', text(match[2] ?? '')]);
      }),
  ],
};

/** Every page with generated tables, and its tables. */
export const GENERATED_PAGES: readonly GeneratedPage[] = [
  { page: 'docs/reference/failure-types.md', tables: [failureTypesTable] },
  { page: 'docs/reference/run-input.md', tables: [runInputTable] },
  { page: 'docs/reference/events.md', tables: [runEventsTable, modelStreamEventsTable] },
  { page: 'docs/reference/cli.md', tables: [cliCommandsTable, cliOptionsTable, cliExitCodesTable] },
];

// ---------------------------------------------------------------- pages

const START = (name: string): string => `<!-- generated: ${name} -->`;
const END = '<!-- end generated -->';

/**
 * `text` with each of `page`'s tables rebuilt between its markers. Throws when
 * a marker is missing: a table the code has must be on its page.
 */
export function regeneratePage(page: GeneratedPage, text: string): string {
  const lines = text.split('\n');
  for (const table of page.tables) {
    const start = lines.indexOf(START(table.name));
    const end = lines.indexOf(END, start + 1);
    if (start === -1 || end === -1) {
      throw new Error(
        `${page.page} has no "${START(table.name)}" ... "${END}" block; add the markers where the table belongs, then run ${REGENERATE_COMMAND}`,
      );
    }
    lines.splice(start + 1, end - start - 1, ...table.render(lines.slice(start + 1, end)));
  }
  return lines.join('\n');
}

/** A page's committed text. */
export function readPage(page: string): string {
  return readFileSync(path.join(ROOT, page), 'utf8');
}

/** What `--check` finds on one page. */
export interface PageReport {
  page: string;
  /** The first line where the page and the code differ, when they do. */
  difference?: { line: number; onThePage: string; fromTheCode: string };
  /** Rows still waiting for their human-written cells. */
  undescribed: string[];
}

/** Each page regenerated in memory and compared with what is committed; nothing is written. */
export function checkPages(): PageReport[] {
  return GENERATED_PAGES.map((page) => {
    const committed = readPage(page.page);
    const [mine, theirs] = [committed.split('\n'), regeneratePage(page, committed).split('\n')];
    const index = Array.from({ length: Math.max(mine.length, theirs.length) }, (_, at) => at).find(
      (at) => mine[at] !== theirs[at],
    );
    return {
      page: page.page,
      ...(index === undefined
        ? {}
        : {
            difference: {
              line: index + 1,
              onThePage: mine[index] ?? '(nothing)',
              fromTheCode: theirs[index] ?? '(nothing)',
            },
          }),
      undescribed: mine.filter((line) => line.includes(TO_DESCRIBE)),
    };
  });
}

/** Rewrites every page whose tables differ from the code, and names what it changed; `--check` prints the reports instead. */
function main(argv: readonly string[]): void {
  if (argv.includes('--check')) {
    process.stdout.write(`${JSON.stringify(checkPages())}\n`);
    return;
  }
  for (const page of GENERATED_PAGES) {
    const text = readPage(page.page);
    const regenerated = regeneratePage(page, text);
    if (regenerated === text) continue;
    writeFileSync(path.join(ROOT, page.page), regenerated);
    console.log(`wrote ${page.page}`);
  }
  const undescribed = GENERATED_PAGES.filter((page) => readPage(page.page).includes(TO_DESCRIBE)).map(
    (page) => page.page,
  );
  if (undescribed.length > 0) console.log(`rows to describe (replace "${TO_DESCRIBE}"): ${undescribed.join(', ')}`);
}

if (require.main === module) main(process.argv.slice(2));
