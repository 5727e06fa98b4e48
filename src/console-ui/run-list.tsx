import { useEffect, useState, type FormEvent } from 'react';
import { api } from './api';
import { ApiRequestError } from './api-request-error';
import { age, dollars, runHref } from './format';

/** One row of `GET /runs`. */
interface RunRow {
  run_id: string;
  temporal_status: string;
  status: string | null;
  iterations: number | null;
  total_tokens: number | null;
  cost_usd: number | null;
  pending_approvals: number | null;
  start_time: string;
  close_time: string | null;
}

const PAGE_SIZE = 20;
const STATUSES = ['running', 'waiting_for_approval', 'waiting_for_input', 'completed', 'failed', 'terminated'];
/** How often the page asks visibility again: one list request, whatever the number of runs. */
const REFRESH_MS = 3000;

/** What the filter form applies: a status, a search-attribute query, a least cost in dollars. */
interface RunFilter {
  status: string;
  query: string;
  minCost: string;
}

/** The filter's least cost as a clause on `AgentCostUsd`; nothing when the box is empty or not a number. */
function costClause(minCost: string): string {
  const dollars = Number(minCost);
  return minCost.trim() === '' || !Number.isFinite(dollars) ? '' : `AgentCostUsd >= ${dollars}`;
}

/** The `GET /runs` address of a page: the filter, and the runs started before `before` (the previous page's last). */
function listPath(filter: RunFilter, before: string | undefined): string {
  const { status, query } = filter;
  const clauses = [
    query.trim(),
    costClause(filter.minCost),
    before === undefined ? '' : `StartTime < '${before}'`,
  ].filter((text) => text !== '');
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (status !== '') params.set('status', status);
  if (clauses.length > 0) params.set('query', clauses.map((clause) => `(${clause})`).join(' AND '));
  return `/runs?${params.toString()}`;
}

/** Runs, newest first, from visibility (no query per run): filtered by status, search attributes and cost, paged. */
export function RunList() {
  const [status, setStatus] = useState('');
  const [query, setQuery] = useState('');
  const [minCost, setMinCost] = useState('');
  const [applied, setApplied] = useState<RunFilter>({ status: '', query: '', minCost: '' });
  const [cursors, setCursors] = useState<string[]>([]);
  const [rows, setRows] = useState<RunRow[] | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const before = cursors[cursors.length - 1];
  useEffect(() => {
    let live = true;
    const load = () =>
      api<{ runs: RunRow[] }>(listPath(applied, before)).then(
        (answer) => {
          if (!live) return;
          setRows(answer.runs);
          setProblem(undefined);
        },
        (error: unknown) => live && setProblem(ApiRequestError.isInstance(error) ? error.message : String(error)),
      );
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [applied, before]);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setCursors([]);
    setApplied({ status, query, minCost });
  };
  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      <form className="filters" onSubmit={apply}>
        <label htmlFor="status">Status</label>
        <select id="status" value={status} onChange={(event) => setStatus(event.target.value)}>
          <option value="">any</option>
          {STATUSES.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        <label htmlFor="query">Search attributes</label>
        <input
          id="query"
          placeholder="AgentTotalTokens > 1000"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
        <label htmlFor="min-cost">Cost at least ($)</label>
        <input
          id="min-cost"
          type="number"
          min="0"
          step="any"
          inputMode="decimal"
          value={minCost}
          onChange={(event) => setMinCost(event.target.value)}
        />
        <button type="submit">Filter</button>
      </form>
      {problem === undefined ? null : (
        <p role="alert" className="problem">
          {problem}
        </p>
      )}
      {rows === undefined ? (
        <p className="loading">Loading…</p>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Runs, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">Iterations</th>
                <th scope="col">Tokens</th>
                <th scope="col">Cost</th>
                <th scope="col">Pending</th>
                <th scope="col">Age</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.run_id}>
                  <td>
                    <a href={runHref(row.run_id)}>{row.run_id}</a>
                  </td>
                  <td>
                    <span className={`status status-${row.status ?? row.temporal_status.toLowerCase()}`}>
                      {row.status ?? row.temporal_status.toLowerCase()}
                    </span>
                  </td>
                  <td>{row.iterations ?? '—'}</td>
                  <td>{row.total_tokens ?? '—'}</td>
                  <td>{dollars(row.cost_usd)}</td>
                  <td>{row.pending_approvals ? row.pending_approvals : '—'}</td>
                  <td>{age(row.start_time)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav className="pager" aria-label="Pages">
        <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </button>
        <button
          type="button"
          disabled={rows === undefined || rows.length < PAGE_SIZE}
          onClick={() => rows && setCursors([...cursors, rows[rows.length - 1]!.start_time])}
        >
          Older
        </button>
      </nav>
    </section>
  );
}
