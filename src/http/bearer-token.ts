import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiAuth } from '../config/api';
import { apiTokenPrincipal, type Principal } from '../config/principals';

/** Every principal `auth` accepts: the `AGENT_API_TOKEN` one first. */
export function principalsOf(auth: ApiAuth): Principal[] {
  if ('disabled' in auth) return [];
  return [...(auth.token === undefined ? [] : [apiTokenPrincipal(auth.token)]), ...(auth.principals ?? [])];
}

/** Whether the `Authorization` header carries a known token (always, when authentication is off). */
export function isAuthorized(auth: ApiAuth, header: string | undefined): boolean {
  return 'disabled' in auth || authenticate(principalsOf(auth), header) !== undefined;
}

/**
 * The principal whose token the `Authorization: Bearer` header carries. The token's digest is compared with
 * every principal's, each in constant time and without stopping at a match: the answer time says nothing
 * about the token, nor about which principal it is.
 */
export function authenticate(principals: readonly Principal[], header: string | undefined): Principal | undefined {
  if (header === undefined || !/^Bearer\s+/i.test(header)) return undefined;
  const presented = createHash('sha256')
    .update(header.replace(/^Bearer\s+/i, '').trim(), 'utf8')
    .digest();
  let found: Principal | undefined;
  for (const principal of principals) {
    if (timingSafeEqual(presented, principal.tokenSha256) && found === undefined) found = principal;
  }
  return found;
}
