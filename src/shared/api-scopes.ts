/** The scopes an API principal may hold: data the configuration and the API's routes share. */

/** Every scope, with what it allows, for the reference. @public */
export const API_SCOPES = {
  'runs:read': 'Read runs and conversations: state, result, transcript, events, the list.',
  'runs:write':
    'Start, steer and stop runs: start, send a message or an answer, stop, terminate; chat turns; end a conversation.',
  'approvals:decide': "Approve or deny a tool call that waits for a decision; answer an MCP server's question.",
  'payloads:decode': "Decode (and encode) payloads with the API's codec, as the Temporal UI and CLI do.",
  admin: 'Everything: every other scope.',
} as const;

/** A scope a principal may hold. */
export type ApiScope = keyof typeof API_SCOPES;

/** Every scope, in the catalogue's order. */
export const API_SCOPE_NAMES = Object.keys(API_SCOPES) as [ApiScope, ...ApiScope[]];
