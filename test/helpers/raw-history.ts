import { runProcess, temporalCli } from './processes';
import { testServerAddress } from './test-env';

/**
 * A run's history as the `temporal` CLI prints it with no codec (`temporal workflow show -o json`): what anyone
 * with access to the server, and no key, reads. Read twice: payloads as the CLI shows them by default (JSON
 * payloads decoded into the output) and raw (`--no-json-shorthand-payloads`, every payload with its metadata).
 */
export async function rawHistory(workflowId: string): Promise<RawHistory> {
  const show = async (extra: string[]) => {
    const args = ['workflow', 'show', '--workflow-id', workflowId, '--output', 'json', ...extra];
    args.push('--address', testServerAddress(), '--namespace', 'default');
    const shown = await runProcess(await temporalCli(), args, { timeoutMs: 30_000 });
    if (shown.code !== 0) throw new Error(`temporal workflow show exited ${shown.code}: ${shown.stderr}`);
    return shown.stdout;
  };
  return new RawHistory(await show([]), await show(['--no-json-shorthand-payloads']));
}

/** A `temporal workflow show -o json` answer, read as text and as its JSON. */
export class RawHistory {
  readonly json: { events: Record<string, unknown>[] };
  private readonly shorthandJson: unknown;

  constructor(shorthand: string, raw: string) {
    this.shorthandJson = JSON.parse(shorthand);
    this.json = JSON.parse(raw) as { events: Record<string, unknown>[] };
  }

  /** Every string of the history, and the text of each that is base64 (payload data, metadata values). */
  strings(): string[] {
    const found: string[] = [];
    const visit = (value: unknown): void => {
      if (typeof value === 'string') {
        found.push(value);
        if (value.length >= 4 && /^[A-Za-z0-9+/]+={0,2}$/.test(value))
          found.push(Buffer.from(value, 'base64').toString('utf8'));
      } else if (Array.isArray(value)) value.forEach(visit);
      else if (typeof value === 'object' && value !== null) Object.values(value).forEach(visit);
    };
    visit(this.json);
    visit(this.shorthandJson);
    return found;
  }

  /** Which of `texts` the history holds anywhere, in clear or base64. */
  holding(texts: readonly string[]): string[] {
    const strings = this.strings();
    return texts.filter((text) => strings.some((each) => each.includes(text)));
  }

  /** Every payload of the history (an object with `metadata` and `data`), its metadata decoded. */
  payloads(): { path: string; metadata: Record<string, string> }[] {
    const found: { path: string; metadata: Record<string, string> }[] = [];
    const visit = (value: unknown, where: string): void => {
      if (Array.isArray(value)) value.forEach((each, index) => visit(each, `${where}[${index}]`));
      else if (typeof value === 'object' && value !== null) {
        const record = value as Record<string, unknown>;
        if (typeof record.metadata === 'object' && record.metadata !== null && 'encoding' in record.metadata) {
          const metadata = Object.fromEntries(
            Object.entries(record.metadata as Record<string, string>).map(([name, encoded]) => [
              name,
              Buffer.from(encoded, 'base64').toString('utf8'),
            ]),
          );
          found.push({ path: where, metadata });
          return;
        }
        for (const [name, each] of Object.entries(record)) visit(each, `${where}.${name}`);
      }
    };
    visit(this.json, '');
    return found;
  }

  /** The events of one type (`EVENT_TYPE_WORKFLOW_TASK_FAILED`, ...). */
  events(type: string): Record<string, unknown>[] {
    return this.json.events.filter((event) => event.eventType === type);
  }
}
