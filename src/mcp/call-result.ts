import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { formatBytes } from '../shared/payload-limits';

/**
 * An MCP tool result as text for the model (text joined, `structuredContent` as JSON, binaries described, never
 * pasted), every untrusted field checked before it is read.
 */
export function resultText(result: CallToolResult): string {
  const parts: string[] = [];
  const structured = result.structuredContent;
  const structuredJson = structured === undefined ? undefined : JSON.stringify(structured);
  if (structuredJson !== undefined) parts.push(structuredJson);
  for (const item of Array.isArray(result.content) ? result.content : []) {
    const text = describeContent(item as unknown as Record<string, unknown>);
    // A server that returns structured content usually repeats it as text, whole or as one of its fields
    // (server-filesystem: `{ content: <the file> }`): once is enough.
    if (text !== undefined && !(structuredJson !== undefined && repeats(text, structured))) parts.push(text);
  }
  return parts.join('\n');
}

function describeContent(item: Record<string, unknown>): string | undefined {
  switch (item.type) {
    case 'text':
      return typeof item.text === 'string' ? item.text : undefined;
    case 'image':
    case 'audio':
      return `[${String(item.type)}: ${String(item.mimeType ?? 'unknown type')}, ${base64Size(item.data)}]`;
    case 'resource_link':
      return `[resource link: ${String(item.name ?? '')} <${String(item.uri ?? '')}>${item.mimeType === undefined ? '' : ` (${String(item.mimeType)})`}]`;
    case 'resource': {
      const resource = (item.resource ?? {}) as Record<string, unknown>;
      const uri = String(resource.uri ?? '');
      const mimeType = resource.mimeType === undefined ? '' : `, ${String(resource.mimeType)}`;
      if (typeof resource.text === 'string') return `[resource <${uri}>${mimeType}]\n${resource.text}`;
      return `[resource <${uri}>${mimeType}, ${base64Size(resource.blob)}]`;
    }
    default:
      return `[${typeof item.type === 'string' ? item.type.slice(0, 40) : 'unknown'} content]`;
  }
}

/** The decoded size of base64 `data`, without decoding it. */
function base64Size(data: unknown): string {
  if (typeof data !== 'string') return 'no data';
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return formatBytes(Math.max(0, Math.floor((data.length * 3) / 4) - padding));
}

/** Whether `text` is `structured` as JSON, or the value of one of its top-level fields. */
function repeats(text: string, structured: unknown): boolean {
  if (sameJson(text, structured)) return true;
  return (
    typeof structured === 'object' &&
    structured !== null &&
    !Array.isArray(structured) &&
    Object.values(structured).some((value) => value === text)
  );
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}
