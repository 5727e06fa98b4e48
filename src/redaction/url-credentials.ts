/**
 * Credentials written into a URL (`https://user:password@host/v1`). The
 * HTTP client refuses such URLs, and a URL is printed wherever it is named,
 * so the configuration refuses them and nothing prints them.
 */

/** The user name and password of `url`, decoded and as written; none when it has neither or is not a URL. */
export function urlCredentials(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const parts = [parsed.username, parsed.password].filter((part) => part !== '');
  return [...new Set(parts.flatMap((part) => [part, safeDecode(part)]))];
}

/**
 * `text` as it may be printed: in every `scheme://...@` the part before the
 * `@` becomes `***`. Works on text that is not a valid URL too, because an
 * invalid URL is exactly what a configuration error message shows.
 */
export function maskUrlCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/?#\s]*@/gi, '$1***@');
}

/**
 * Why `url`, given as `name`, is refused, or undefined when it carries no
 * credentials. The message shows the URL with its credentials masked.
 */
export function urlCredentialsProblem(name: string, url: string): string | undefined {
  if (urlCredentials(url).length === 0) return undefined;
  return (
    `${name}="${maskUrlCredentials(url)}" has credentials in it (user:password@), which the HTTP client refuses to send ` +
    'and which would be printed wherever the URL is shown. Remove them from the URL; the provider key goes in ' +
    'OPENAI_API_KEY, which is sent as a bearer token.'
  );
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
