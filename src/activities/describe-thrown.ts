import { TOOL_ERROR_DESCRIPTION_CHARS } from '../shared/defaults/tools';

/**
 * What a tool threw, in words for the model; every step is guarded, since a throw here would run the tool again.
 */
export function describeThrown(thrown: unknown): string {
  const text = attempt(() => {
    if (thrown instanceof Error) return String(thrown.message);
    if (typeof thrown === 'string') return thrown;
    if (thrown === null || thrown === undefined || typeof thrown !== 'object') return String(thrown);
    const message = (thrown as { message?: unknown }).message;
    if (typeof message === 'string') return message;
    const json = JSON.stringify(thrown);
    return json === undefined || json === '{}' ? String(thrown) : json;
  });
  const described = text === undefined || text === '' ? 'the tool threw a value that cannot be described' : text;
  return described.length > TOOL_ERROR_DESCRIPTION_CHARS
    ? `${described.slice(0, TOOL_ERROR_DESCRIPTION_CHARS)}…`
    : described;
}

function attempt(describe: () => string): string | undefined {
  try {
    return describe();
  } catch {
    return undefined;
  }
}
