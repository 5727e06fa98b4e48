import { useState, type ReactNode } from 'react';
import { ApiRequestError } from './api-request-error';

/** A folded section whose content is read (one request) only when a person opens it. */
export function OnDemand<T>({
  label,
  read,
  render,
}: {
  label: string;
  read: () => Promise<T>;
  render: (value: T) => ReactNode;
}) {
  const [value, setValue] = useState<{ data: T } | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const opened = (open: boolean) => {
    if (!open || value !== undefined) return;
    read().then(
      (data) => setValue({ data }),
      (error: unknown) => setProblem(ApiRequestError.isInstance(error) ? error.message : String(error)),
    );
  };
  return (
    <details onToggle={(event) => opened(event.currentTarget.open)}>
      <summary>{label}</summary>
      {problem !== undefined ? (
        <p role="alert" className="problem">
          {problem}
        </p>
      ) : value === undefined ? (
        <p className="loading">Loading…</p>
      ) : (
        render(value.data)
      )}
    </details>
  );
}
