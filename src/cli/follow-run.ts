import type { Client } from '@temporalio/client';
import { followRunEvents, getRunOutcome, terminateAgentRun } from '../client/run-control';
import { isModelStreamEvent } from '../shared/model-stream-events';
import { type RunEvent } from '../shared/run-events';
import { describeEvent } from './event-lines';
import { StreamedText } from './streamed-text';
import { ExitCode, exitCodeForOutcome } from './exit-codes';
import {
  InterruptController,
  SAME_KEYPRESS_MS,
  askOnTerminal,
  listenForInterrupts,
  underTsxCommandLine,
  type InterruptPolicy,
} from './interrupts';
import { describeOutcome } from './outcome-lines';
import type { Output } from './output';
import { terminateCommand, watchCommand } from './steering-commands';

/** The reason a Ctrl-C'd `run` gives the run, so its history says who stopped it. */
const INTERRUPT_REASON = 'interrupted from agent-runner (Ctrl-C)';

/** Options of {@link followRun}. */
export interface FollowRunOptions {
  output: Output;
  /** What Ctrl-C does meanwhile. */
  policy: InterruptPolicy;
  /** Start after this event (`seq`). @default 0 */
  after?: number;
  /** Print nothing before the first event this accepts (`terminate --wait` prints from its own request on). */
  printFrom?: (event: RunEvent) => boolean;
  /** The caller already asked the run to terminate (`terminate --wait`); a Ctrl-C notice then says it is ending. */
  terminationRequested?: boolean;
}

/**
 * Prints the run's events as they happen (lines, or NDJSON under `--json`),
 * then how it ended, and answers the exit code for that ending, or 130 when
 * Ctrl-C stopped following first.
 */
export async function followRun(client: Client, workflowId: string, options: FollowRunOptions): Promise<ExitCode> {
  const { output } = options;
  const stopping = new AbortController();
  const controller = createInterruptController(client, workflowId, options, stopping);
  const terminationRequested = () => options.terminationRequested === true || controller.terminationRequested;
  const stopListening = listenForInterrupts(controller);
  try {
    const followed = await unlessAborted(printEvents(client, workflowId, options, stopping.signal), stopping.signal);
    if (followed === ABORTED || stopping.signal.aborted)
      return stoppedFollowing(workflowId, output, terminationRequested());
    const outcome = await unlessAborted(getRunOutcome(client, workflowId), stopping.signal);
    if (outcome === ABORTED) return stoppedFollowing(workflowId, output, terminationRequested());
    if (output.json) output.jsonLine({ outcome });
    else for (const line of describeOutcome(outcome)) output.line(line);
    return exitCodeForOutcome(outcome);
  } finally {
    controller.close();
    stopListening();
  }
}

/** Ctrl-C handling for one followed run; stopping following aborts `stopping`. */
function createInterruptController(
  client: Client,
  workflowId: string,
  options: FollowRunOptions,
  stopping: AbortController,
): InterruptController {
  const { output } = options;
  const controller: InterruptController = new InterruptController(
    options.policy,
    workflowId,
    {
      ask: (question) => askOnTerminal(question, output, () => controller.interrupt()),
      terminate: () => terminateAgentRun(client, workflowId, INTERRUPT_REASON),
      stopFollowing: () => stopping.abort(),
      notice: (text) => output.notice(text),
    },
    { mergeRepeatsWithinMs: underTsxCommandLine() ? SAME_KEYPRESS_MS : 0 },
  );
  return controller;
}

async function printEvents(
  client: Client,
  workflowId: string,
  options: FollowRunOptions,
  signal: AbortSignal,
): Promise<void> {
  const { output, printFrom } = options;
  let printing = printFrom === undefined;
  // Only a follower that would have printed the missing events hears about them (`terminate --wait` prints from its request on).
  const onMissed = (missed: number) => {
    if (!printing || signal.aborted) return;
    output.notice(
      `(${missed} earlier event${missed === 1 ? ' is' : 's are'} no longer kept: the run continued as new since; following on from the oldest kept)`,
    );
  };
  // `--json` stays the durable log, one event a line in seq order: the model's text streams to people only.
  const streamed = new StreamedText(output);
  for await (const event of followRunEvents(client, workflowId, {
    after: options.after ?? 0,
    signal,
    onMissed,
    onNoWorker: (taskQueue) => output.notice(noWorkerNotice(taskQueue)),
    deltas: !output.json,
  })) {
    if (signal.aborted) return;
    if (isModelStreamEvent(event)) {
      if (printing) streamed.take(event);
      continue;
    }
    printing ||= printFrom?.(event) === true;
    if (!printing) continue;
    if (output.json) output.jsonLine(event);
    else {
      // The text was printed as it came: the recorded answer is not printed again. Any other event starts a line of its own.
      let shown = false;
      if (event.type === 'model-response') shown = streamed.finish();
      else streamed.breakLine();
      // An event's lines go out in one write, so a reader never sees half of one.
      const lines = shown ? [] : describeEvent(event, workflowId);
      if (lines.length > 0) output.line(lines.join('\n'));
    }
  }
  streamed.finish();
}

/** What a follower of a run that no worker serves is told; it goes on waiting. */
function noWorkerNotice(taskQueue: string): string {
  return (
    `(no worker polls task queue "${taskQueue}": the run waits until one does. Start one with ` +
    `AGENT_TASK_QUEUE=${taskQueue} npm run worker; see docs/troubleshooting.md)`
  );
}

function stoppedFollowing(workflowId: string, output: Output, terminationRequested: boolean): ExitCode {
  output.notice(
    terminationRequested
      ? `Stopped following run ${workflowId}; it was asked to terminate and is ending. Watch it: ${watchCommand(workflowId)}`
      : `Stopped following run ${workflowId}; it goes on. Watch it again: ${watchCommand(workflowId)} · stop it: ${terminateCommand(workflowId)}`,
  );
  return ExitCode.interrupted;
}

const ABORTED = Symbol('aborted');

/**
 * `work`'s value, or {@link ABORTED} as soon as `signal` fires: a query in
 * flight is not waited for, so a second Ctrl-C returns the terminal at once.
 */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  return Promise.race([
    work,
    new Promise<typeof ABORTED>((resolve) => signal.addEventListener('abort', () => resolve(ABORTED), { once: true })),
  ]);
}
