/**
 * Where the tool writes: results to stdout, errors to stderr, notices to stdout (stderr under `--json`); output is held
 * while a question is on the terminal.
 */
export interface Output {
  /** Whether results are JSON (`--json`). */
  readonly json: boolean;
  /** A line of the command's result. */
  line(text: string): void;
  /** Part of a line, written as it comes (the model's text while it is generated); no newline is added. */
  partial(text: string): void;
  /** One JSON value on one line (NDJSON when repeated). */
  jsonLine(value: unknown): void;
  /** A JSON document, indented for reading. */
  jsonDocument(value: unknown): void;
  /** A line for the person at the terminal that is not part of the result. */
  notice(text: string): void;
  /** A problem, on stderr. */
  error(text: string): void;
  /** Buffers stdout lines until {@link release}. */
  hold(): void;
  /** Writes what was held, then writes straight through again. */
  release(): void;
}

/** Streams {@link createOutput} writes to; swapped in unit tests. */
export interface OutputStreams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** An {@link Output} on the process's streams (or `streams`). */
export function createOutput(json: boolean, streams: OutputStreams = process): Output {
  let held: string[] | undefined;
  const write = (text: string) => {
    if (held !== undefined) held.push(text);
    else streams.stdout.write(text);
  };
  const toStdout = (text: string) => write(`${text}\n`);
  const toStderr = (text: string) => streams.stderr.write(`${text}\n`);
  return {
    json,
    line: toStdout,
    partial: write,
    jsonLine: (value) => toStdout(JSON.stringify(value)),
    jsonDocument: (value) => toStdout(JSON.stringify(value, null, 2)),
    notice: json ? toStderr : toStdout,
    error: toStderr,
    hold: () => {
      held ??= [];
    },
    release: () => {
      const texts = held ?? [];
      held = undefined;
      for (const text of texts) write(text);
    },
  };
}
