/**
 * The model's argument text as a value: the parsed JSON, `{}` for an empty
 * text (some providers send "" for a call without arguments), or the raw text
 * when it is not JSON, so nothing the model sent is lost in the record.
 */
export function parseArgumentsLeniently(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
