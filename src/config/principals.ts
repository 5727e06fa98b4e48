import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { deciderNameSchema } from '../shared/control';
import { API_SCOPE_NAMES, type ApiScope } from '../shared/api-scopes';

/**
 * Who may call the API: principals, each a name, the SHA-256 digest of its token and its scopes. Only the
 * digest is stored, so the principals file holds no secret; a presented token is hashed and compared with
 * every digest in constant time.
 */

/** One principal, as the API holds it. */
export interface Principal {
  /** Recorded with each decision it makes (`by.name`) and in the API's audit lines. */
  name: string;
  /** SHA-256 of the token, 32 bytes. */
  tokenSha256: Buffer;
  scopes: ReadonlySet<ApiScope>;
}

/** The name of the principal `AGENT_API_TOKEN` stands for; it holds every scope. */
export const API_TOKEN_PRINCIPAL = 'api-token';

/** One entry of the principals file. Exported for whoever documents or validates the shape. @public */
export const principalEntrySchema = z.strictObject({
  name: deciderNameSchema,
  tokenSha256: z
    .string()
    .regex(
      /^[0-9a-fA-F]{64}$/,
      'expected the SHA-256 of the token, 64 hex digits (`agent-runner api-token` prints one)',
    ),
  scopes: z.array(z.enum(API_SCOPE_NAMES)).min(1, 'give at least one scope'),
});

/** The principals file: a JSON array of entries. */
const principalsFileSchema = z.array(z.unknown()).min(1);

/**
 * Reads the principals file's text: every problem at once, each naming its entry (`entry 2 ("ops-bot")`).
 * Names and digests must be unique; `reserved` names (the `AGENT_API_TOKEN` principal's) are refused.
 */
export function parsePrincipals(
  text: string,
  reserved: readonly string[] = [],
): { ok: true; principals: Principal[] } | { ok: false; problems: string[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [`not JSON: ${(error as Error).message}`] };
  }
  const list = principalsFileSchema.safeParse(raw);
  if (!list.success)
    return {
      ok: false,
      problems: [
        Array.isArray(raw) ? 'the file lists no principal' : 'expected a JSON array of { name, tokenSha256, scopes }',
      ],
    };
  const problems: string[] = [];
  const principals: Principal[] = [];
  const names = new Set<string>(reserved);
  const digests = new Set<string>();
  list.data.forEach((item, index) => {
    // Quoted as JSON: the name is what the file says, control characters and all.
    const name =
      typeof (item as { name?: unknown })?.name === 'string'
        ? ` (${JSON.stringify((item as { name: string }).name.slice(0, 100))})`
        : '';
    const label = `entry ${index + 1}${name}`;
    const entry = principalEntrySchema.safeParse(item);
    if (!entry.success) {
      for (const issue of entry.error.issues)
        problems.push(`${label}: ${issue.path.join('.') || 'entry'}: ${issue.message}`);
      return;
    }
    const digest = entry.data.tokenSha256.toLowerCase();
    if (names.has(entry.data.name))
      problems.push(
        `${label}: the name is taken${reserved.includes(entry.data.name) ? ' (by AGENT_API_TOKEN)' : ''}; names must be unique`,
      );
    if (digests.has(digest)) problems.push(`${label}: the same token as an earlier entry; give each its own token`);
    names.add(entry.data.name);
    digests.add(digest);
    principals.push({
      name: entry.data.name,
      tokenSha256: Buffer.from(digest, 'hex'),
      scopes: new Set(entry.data.scopes),
    });
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, principals };
}

/** SHA-256 of a token, as the principals file's `tokenSha256` holds it (hex). Same as `printf %s "$TOKEN" | sha256sum`. */
export function tokenSha256(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A fresh token (32 random bytes, hex) and its digest, for a new principal. */
export function newApiToken(): { token: string; tokenSha256: string } {
  const token = randomBytes(32).toString('hex');
  return { token, tokenSha256: tokenSha256(token) };
}

/** The principal `AGENT_API_TOKEN` stands for: every scope. */
export function apiTokenPrincipal(token: string): Principal {
  return { name: API_TOKEN_PRINCIPAL, tokenSha256: Buffer.from(tokenSha256(token), 'hex'), scopes: new Set(['admin']) };
}
