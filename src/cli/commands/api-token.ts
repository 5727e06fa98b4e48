import { newApiToken } from '../../config/principals';
import type { ApiScope } from '../../api/scopes';
import { ExitCode } from '../exit-codes';
import { createOutput } from '../output';

/**
 * `agent-runner api-token`: a fresh token for an API principal, and the entry of the principals file that
 * holds its SHA-256 (the file holds no token). Nothing is sent anywhere; the token is printed once.
 */
export function apiTokenCommand(options: { name: string; scopes: ApiScope[]; json?: boolean }): ExitCode {
  const output = createOutput(options.json === true);
  const { token, tokenSha256 } = newApiToken();
  const entry = { name: options.name, tokenSha256, scopes: options.scopes };
  if (output.json) {
    output.jsonDocument({ token, entry });
    return ExitCode.ok;
  }
  output.line(`token:       ${token}`);
  output.line(`tokenSha256: ${tokenSha256}`);
  output.line('');
  output.line(
    'Give the token to the client (Authorization: Bearer <token>); add this entry to AGENT_API_PRINCIPALS_FILE:',
  );
  output.line(JSON.stringify(entry));
  return ExitCode.ok;
}
