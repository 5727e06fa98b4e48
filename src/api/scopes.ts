/**
 * The one table of the scope each route needs; a route missing from it cannot be registered.
 */

import type { ApiScope } from '../shared/api-scopes';

export { API_SCOPE_NAMES, type ApiScope } from '../shared/api-scopes';

/** Routes answered to anyone: the probes, the OpenAPI document and the console's page, none of which says anything about runs. */
export const OPEN_ROUTES: ReadonlySet<string> = new Set([
  'GET /healthz',
  'GET /readyz',
  'GET /openapi.json',
  // The console's page and sign-in: a static bundle, and routes that check the token or the session cookie themselves.
  'GET /console',
  'GET /console/',
  'GET /console/:file',
  'POST /console/api/sign-in',
  'GET /console/api/session',
  'POST /console/api/sign-out',
]);

/** The scope each route needs, by `METHOD /path` as registered. */
export const ROUTE_SCOPES: Readonly<Record<string, ApiScope>> = {
  'POST /runs': 'runs:write',
  'GET /runs': 'runs:read',
  'GET /runs/:run_id': 'runs:read',
  'GET /runs/:run_id/result': 'runs:read',
  'POST /runs/:run_id/approve': 'approvals:decide',
  'POST /runs/:run_id/deny': 'approvals:decide',
  'POST /runs/:run_id/answer': 'approvals:decide',
  'POST /runs/:run_id/stop': 'runs:write',
  'POST /runs/:run_id/terminate': 'runs:write',
  // It reads the source too: the handler also asks for `runs:read` (FORK_READ_SCOPE).
  'POST /runs/:run_id/fork': 'runs:write',
  'POST /runs/:run_id/messages': 'runs:write',
  'GET /runs/:run_id/messages': 'runs:read',
  'GET /runs/:run_id/events': 'runs:read',
  'POST /chat': 'runs:write',
  'POST /chat/invoke': 'runs:write',
  'POST /chat/add-ai-message': 'runs:write',
  'GET /conversations/:context_id': 'runs:read',
  'DELETE /conversations/:context_id': 'runs:write',
  // An answered approval in its messages needs `approvals:decide` too (UI_CHAT_DECIDE_SCOPE).
  'POST /ui/chat': 'runs:write',
  'GET /ui/chat/:id/stream': 'runs:read',
  'POST /codec/encode': 'payloads:decode',
  'POST /codec/decode': 'payloads:decode',
};

/**
 * The scope of each console route that is not open: the console's own, registered only with `buildApiServer({ console })`
 * and not in the OpenAPI document (the console's page is their one caller).
 */
const CONSOLE_ROUTE_SCOPES: Readonly<Record<string, ApiScope>> = {
  'GET /console/api/approvals': 'runs:read',
};

/** What `POST /runs/:run_id/fork` needs besides its route's scope: it reads the source run's conversation. */
export const FORK_READ_SCOPE: ApiScope = 'runs:read';

/** What `POST /ui/chat` needs besides its route's scope when its last message answers an approval. */
export const UI_CHAT_DECIDE_SCOPE: ApiScope = 'approvals:decide';

/** The key of a route in {@link ROUTE_SCOPES}; a HEAD route fastify adds for a GET is the GET. */
export function routeKey(method: string, url: string): string {
  return `${method === 'HEAD' ? 'GET' : method} ${url}`;
}

/**
 * The scope a route needs: `null` when it is open, `undefined` when the table does not know it.
 */
export function scopeOfRoute(method: string, url: string): ApiScope | null | undefined {
  const key = routeKey(method, url);
  if (OPEN_ROUTES.has(key)) return null;
  return ROUTE_SCOPES[key] ?? CONSOLE_ROUTE_SCOPES[key];
}

/** Whether `held` allows `needed`: it is there, or `admin` is. */
export function allows(held: ReadonlySet<ApiScope>, needed: ApiScope): boolean {
  return held.has(needed) || held.has('admin');
}
