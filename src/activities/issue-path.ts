/**
 * Where in a provider's answer a zod issue is, as `choices[0].message.tool_calls[1].function`; '' for the answer.
 */
export function issuePath(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
    .join('');
}
