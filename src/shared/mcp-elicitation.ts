/**
 * An MCP server's elicitation (`elicitation/create`: the server needs input from a person during a tool call),
 * as the worker hands it to the run and reads the answer back. Pure: used by the worker and the workflow.
 */

/** What the worker signals to the run (`mcpElicitation`) when a server asks during a call. */
export interface McpElicitationRequest {
  /** `<callId>#<n>`: the n-th question of this call; the same on every attempt of the call, so an answer outlives a retry. */
  id: string;
  callId: string;
  server: string;
  /** The question as a person reads it: the server's message and how to answer. */
  question: string;
  /** The server's `requestedSchema`, as JSON text cut to {@link MAX_SCHEMA_CHARS}; absent when longer. */
  requestedSchema?: string;
}

/** What the `mcpElicitationAnswer` query answers for a request id. */
export type McpElicitationAnswer =
  | { status: 'pending' }
  /** `result`: answered by `answerElicitation`, sent as it is; without it, a text to map onto the form (older runs). */
  | { status: 'answered'; answer: string; result?: McpElicitResult }
  | { status: 'unknown' };

/** The result sent back to the server: `accept` with the fields, or the person's refusal. */
export type McpElicitResult =
  | { action: 'accept'; content: Record<string, string | number | boolean | string[]> }
  | { action: 'decline' }
  | { action: 'cancel' };

/** Longest requested schema carried in the event log and state; a longer one is left out (the question still lists the fields). */
export const MAX_SCHEMA_CHARS = 8_000;
/** Longest server message put in the question. */
const MAX_MESSAGE_CHARS = 2_000;
/** Fields listed in the question. */
const MAX_LISTED_FIELDS = 20;

interface PropertySchema {
  type?: unknown;
  title?: unknown;
  description?: unknown;
}

interface RequestedSchema {
  properties?: Record<string, PropertySchema>;
  required?: unknown;
}

/** The question a person reads: which server asks, its message, the fields, and how to accept, decline or cancel. */
export function elicitationQuestion(server: string, message: string, requestedSchema: unknown): string {
  const text = message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}…` : message;
  const properties = propertiesOf(requestedSchema);
  const required = requiredOf(requestedSchema);
  const names = Object.keys(properties);
  const listed = names.slice(0, MAX_LISTED_FIELDS).map((name) => {
    const type = typeof properties[name]?.type === 'string' ? String(properties[name]?.type) : 'value';
    return `${name} (${type}${required.includes(name) ? ', required' : ''})`;
  });
  const more = names.length > MAX_LISTED_FIELDS ? `, and ${names.length - MAX_LISTED_FIELDS} more` : '';
  const fields = names.length === 0 ? 'No fields to fill' : `Fields: ${listed.join(', ')}${more}`;
  return `MCP server "${server}" asks: ${text}\n${fields}. Answer with accept (and the fields), decline or cancel: \`agent-runner answer\`, or the answerElicitation update.`;
}

/**
 * Maps a person's text answer onto the server's schema: `decline` or `cancel` refuse, a JSON object is the fields,
 * other text fills the one field it can mean (the only, or only required, scalar field); `undefined` when nothing fits.
 */
export function elicitResultOf(answer: string, requestedSchema: unknown): McpElicitResult | undefined {
  const trimmed = answer.trim();
  const word = trimmed.toLowerCase();
  if (word === 'decline') return { action: 'decline' };
  if (word === 'cancel') return { action: 'cancel' };
  const properties = propertiesOf(requestedSchema);
  if (trimmed.startsWith('{')) {
    try {
      const parsed = JSON.parse(trimmed) as unknown;
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
        const content = fieldValues(parsed as Record<string, unknown>);
        // Meant as the fields, but a field holds what a form cannot (an object, a list of numbers).
        return content === undefined ? undefined : { action: 'accept', content };
      }
    } catch {
      // not JSON: the text may still be one field's value
    }
  }
  if (Object.keys(properties).length === 0) return { action: 'accept', content: {} };
  const field = singleField(requestedSchema);
  if (field === undefined) return undefined;
  const value = valueOf(trimmed, properties[field]?.type);
  return value === undefined ? undefined : { action: 'accept', content: { [field]: value } };
}

/** The field a plain-text answer fills: the only field, else the only required one; it must take a scalar. */
function singleField(requestedSchema: unknown): string | undefined {
  const properties = propertiesOf(requestedSchema);
  const names = Object.keys(properties);
  const required = requiredOf(requestedSchema).filter((name) => names.includes(name));
  const field = names.length === 1 ? names[0] : required.length === 1 ? required[0] : undefined;
  if (field === undefined) return undefined;
  const type = properties[field]?.type;
  return type === undefined || ['string', 'number', 'integer', 'boolean'].includes(String(type)) ? field : undefined;
}

function valueOf(text: string, type: unknown): string | number | boolean | undefined {
  if (type === 'number' || type === 'integer') {
    const number = Number(text);
    if (text === '' || !Number.isFinite(number) || (type === 'integer' && !Number.isInteger(number))) return undefined;
    return number;
  }
  if (type === 'boolean') {
    const word = text.toLowerCase();
    if (['true', 'yes', 'y'].includes(word)) return true;
    if (['false', 'no', 'n'].includes(word)) return false;
    return undefined;
  }
  return text;
}

/** The object's fields as an elicitation result holds them (strings, numbers, booleans, lists of strings); else undefined. */
function fieldValues(
  object: Record<string, unknown>,
): Record<string, string | number | boolean | string[]> | undefined {
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const [name, value] of Object.entries(object)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') content[name] = value;
    else if (Array.isArray(value) && value.every((item) => typeof item === 'string')) content[name] = value;
    else return undefined;
  }
  return content;
}

function propertiesOf(requestedSchema: unknown): Record<string, PropertySchema> {
  const properties = (requestedSchema as RequestedSchema | null)?.properties;
  return typeof properties === 'object' && properties !== null ? properties : {};
}

function requiredOf(requestedSchema: unknown): string[] {
  const required = (requestedSchema as RequestedSchema | null)?.required;
  return Array.isArray(required) ? required.filter((name): name is string => typeof name === 'string') : [];
}

/** The schema as JSON text for the log, or undefined when it is longer than {@link MAX_SCHEMA_CHARS}. */
export function schemaText(requestedSchema: unknown): string | undefined {
  const text = JSON.stringify(requestedSchema ?? {});
  return text.length > MAX_SCHEMA_CHARS ? undefined : text;
}
