import { CONSOLE_CSRF_HEADER } from '../shared/defaults/console';
import { ApiRequestError } from './api-request-error';
/** What `/console/api/session` and the sign-in answer: who is signed in and what they may do. */
export interface Session {
  principal: string | null;
  scopes: string[];
  csrf_token: string;
  expires_at: string | null;
  namespace: string;
  temporal_ui_url: string;
}

let csrfToken = '';

/** Remembers the session's CSRF token, sent with every request from now on. */
export function useCsrfToken(token: string): void {
  csrfToken = token;
}

/** Whether the session's scopes allow `scope` (`admin` allows all). */
export function can(session: Session, scope: string): boolean {
  return session.scopes.includes(scope) || session.scopes.includes('admin');
}

/** One call of the API with the session's cookie and CSRF header; the JSON answer, or an {@link ApiRequestError}. */
export async function api<T>(path: string, options: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(path, {
    method: options.method ?? 'GET',
    credentials: 'same-origin',
    headers: {
      [CONSOLE_CSRF_HEADER]: csrfToken,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  const json = text === '' ? undefined : (JSON.parse(text) as unknown);
  if (!response.ok) {
    const error = (json as { error?: { code?: string; message?: string } } | undefined)?.error;
    throw new ApiRequestError(response.status, error?.code ?? 'error', error?.message ?? response.statusText);
  }
  return json as T;
}

/** One Server-Sent Event. */
export interface StreamEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * The Server-Sent Events of `path`, read with `fetch` so the CSRF header goes along (an EventSource sends none);
 * resumes after the last event id when the connection drops, and ends on a 204 or when `signal` aborts.
 */
export async function* readStream(path: string, signal: AbortSignal): AsyncGenerator<StreamEvent> {
  let lastId: string | undefined;
  while (!signal.aborted) {
    let response: Response;
    try {
      response = await fetch(path, {
        credentials: 'same-origin',
        headers: { [CONSOLE_CSRF_HEADER]: csrfToken, ...(lastId === undefined ? {} : { 'last-event-id': lastId }) },
        signal,
      });
    } catch {
      if (signal.aborted) return;
      await pause(1000, signal);
      continue;
    }
    if (response.status === 204) return;
    if (!response.ok || response.body === null)
      throw new ApiRequestError(response.status, 'stream', response.statusText);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const frame = parseFrame(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          if (frame === undefined) continue;
          if (frame.id !== undefined) lastId = frame.id;
          yield frame;
          if (frame.event === 'end') return;
        }
      }
    } catch {
      if (signal.aborted) return;
    }
    await pause(1000, signal);
  }
}

function parseFrame(text: string): StreamEvent | undefined {
  let event = 'message';
  let id: string | undefined;
  const data: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith(':')) continue;
    const separator = line.indexOf(':');
    const field = separator < 0 ? line : line.slice(0, separator);
    const value = separator < 0 ? '' : line.slice(separator + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
  }
  if (data.length === 0) return undefined;
  return { event, data: data.join('\n'), ...(id === undefined ? {} : { id }) };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
