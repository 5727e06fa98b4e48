/**
 * A worker's Temporal identity ends with `agent-stream=<url>`, its stream listener, so a follower finds where a model
 * call streams by describing the run, without a billed heartbeat.
 */

const MARK = ' agent-stream=';

/** `identity` with `url` as its stream listener (any earlier one replaced). */
export function withStreamUrl(identity: string, url: string): string {
  return `${withoutStreamUrl(identity)}${MARK}${url}`;
}

/** The stream listener's base URL an identity carries, if it carries an http(s) one. */
export function streamUrlOf(identity: string | null | undefined): string | undefined {
  const at = identity?.lastIndexOf(MARK) ?? -1;
  if (identity === null || identity === undefined || at < 0) return undefined;
  const url = identity.slice(at + MARK.length);
  return /^https?:\/\/\S+$/.test(url) ? url : undefined;
}

function withoutStreamUrl(identity: string): string {
  const at = identity.lastIndexOf(MARK);
  return at < 0 ? identity : identity.slice(0, at);
}
