/**
 * Where in a provider's answer a zod issue is, as a reader writes it:
 * `choices[0].message.tool_calls[1].function` (keys joined with dots,
 * indices in brackets); '' for the answer itself. Shared by the checks of a
 * whole answer and of a streamed chunk, so both name places alike.
 */
export function issuePath(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
    .join('');
}
