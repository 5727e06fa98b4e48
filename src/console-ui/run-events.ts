import { useEffect, useState } from 'react';
import { readStream } from './api';
import { ApiRequestError } from './api-request-error';
import type { RunEventView } from './conversation';

/** A run's events as the console reads them, with the model's text being written and what went wrong. */
export interface RunEventsRead {
  events: RunEventView[];
  draft: string;
  problem?: string;
}

/**
 * Follows `GET /runs/:id/events` while `enabled`: the API's one shared follow of a live run, and an ended run's
 * events from its history (no query, no worker), so reading a finished run costs no billed query.
 */
export function useRunEvents(runId: string, enabled = true): RunEventsRead {
  const [events, setEvents] = useState<RunEventView[]>([]);
  const [draft, setDraft] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  useEffect(() => {
    if (!enabled) return;
    const stop = new AbortController();
    setEvents([]);
    setDraft('');
    setProblem(undefined);
    void (async () => {
      try {
        for await (const frame of readStream(`/runs/${encodeURIComponent(runId)}/events`, stop.signal)) {
          if (frame.event === 'model-text-delta')
            setDraft((text) => text + (JSON.parse(frame.data) as { text: string }).text);
          else if (frame.event === 'model-delta-reset') setDraft('');
          else if (frame.event === 'error') setProblem((JSON.parse(frame.data) as { message: string }).message);
          else if (frame.id !== undefined) {
            const event = JSON.parse(frame.data) as RunEventView;
            if (event.type === 'model-response' || event.type === 'run-end') setDraft('');
            setEvents((seen) => [...seen, event]);
          }
        }
      } catch (error) {
        if (!stop.signal.aborted) setProblem(ApiRequestError.isInstance(error) ? error.message : String(error));
      }
    })();
    return () => stop.abort();
  }, [runId, enabled]);
  return { events, draft, ...(problem === undefined ? {} : { problem }) };
}
