import readline from 'node:readline';
import type { Output } from './output';

/**
 * Ctrl-C never kills a run by accident (it lives in Temporal): it terminates gracefully or stops following, and a
 * second one always gives the terminal back.
 */

/**
 * - `ask` (`run` on a terminal): ask "Terminate run ...? [y/N]"; a second Ctrl-C while asking stops following.
 * - `terminate` (`run` without a terminal): the first Ctrl-C terminates gracefully and following goes on to the
 *   end; the second stops following.
 * - `stop` (`watch`, `terminate --wait`): stop following at once; the run is left alone.
 */
export type InterruptPolicy = 'ask' | 'terminate' | 'stop';

/** A yes/no question on the terminal. */
export interface PendingQuestion {
  /** True for yes. */
  answer: Promise<boolean>;
  /** Withdraws the question (its answer is then ignored). */
  cancel(): void;
}

/** What the controller acts through; the real ones talk to the terminal and Temporal. */
export interface InterruptActions {
  ask(question: string): PendingQuestion;
  /** Sends the graceful terminate. */
  terminate(): Promise<void>;
  /** Stops following; the run goes on. */
  stopFollowing(): void;
  notice(text: string): void;
}

type Phase = 'following' | 'asking' | 'terminating' | 'stopped';

/**
 * Interrupts this close together count as one: under `npm run cli`, tsx relays a Ctrl-C again when this process is slow
 * to report it, so one key press can arrive twice.
 */
export const SAME_KEYPRESS_MS = 100;

/** Whether a tsx parent may relay signals to this process (its preflight script is loaded). */
export function underTsxCommandLine(execArgv: readonly string[] = process.execArgv): boolean {
  return execArgv.some((argument) => /tsx[\\/]dist[\\/]preflight/.test(argument));
}

/** Turns each Ctrl-C into the next step of the chosen {@link InterruptPolicy}. */
export class InterruptController {
  private phase: Phase = 'following';
  private question: PendingQuestion | undefined;
  private terminateSent = false;
  private lastInterruptAt = Number.NEGATIVE_INFINITY;

  /** @param options.mergeRepeatsWithinMs see {@link SAME_KEYPRESS_MS} @default 0 (every interrupt counts) */
  constructor(
    private readonly policy: InterruptPolicy,
    private readonly workflowId: string,
    private readonly actions: InterruptActions,
    private readonly options: { mergeRepeatsWithinMs?: number; now?: () => number } = {},
  ) {}

  /** Whether a graceful terminate was sent. */
  get terminationRequested(): boolean {
    return this.terminateSent;
  }

  /** One Ctrl-C. */
  interrupt(): void {
    const at = this.options.now?.() ?? performance.now();
    const repeated = at - this.lastInterruptAt < (this.options.mergeRepeatsWithinMs ?? 0);
    this.lastInterruptAt = at;
    if (this.phase === 'stopped' || repeated) return;
    if (this.phase === 'asking' || this.phase === 'terminating' || this.policy === 'stop') return this.stop();
    if (this.policy === 'terminate') {
      this.actions.notice(
        `Ctrl-C: asking run ${this.workflowId} to terminate gracefully. Ctrl-C again stops following and leaves the run as it is.`,
      );
      return this.requestTermination();
    }
    this.askFirst();
  }

  private askFirst(): void {
    this.phase = 'asking';
    const question = this.actions.ask(`Terminate run ${this.workflowId} gracefully? [y/N] `);
    this.question = question;
    question.answer.then(
      (yes) => {
        if (this.question !== question || this.phase !== 'asking') return; // withdrawn by a second Ctrl-C
        this.question = undefined;
        if (!yes) {
          this.phase = 'following';
          this.actions.notice('Still following; the run goes on.');
          return;
        }
        this.actions.notice(`Asking run ${this.workflowId} to terminate gracefully. Ctrl-C again stops following.`);
        this.requestTermination();
      },
      () => {
        if (this.phase === 'asking') this.phase = 'following';
      },
    );
  }

  private requestTermination(): void {
    this.phase = 'terminating';
    this.terminateSent = true;
    this.actions.terminate().catch((error: unknown) => {
      this.actions.notice(
        `Could not ask the run to terminate: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }

  /** Following has ended on its own (the run ended): an open question is withdrawn, so held output comes out. */
  close(): void {
    if (this.phase === 'asking') this.phase = 'following';
    this.question?.cancel();
    this.question = undefined;
  }

  private stop(): void {
    this.phase = 'stopped';
    this.question?.cancel();
    this.question = undefined;
    this.actions.stopFollowing();
  }
}

/** Routes the process's SIGINT to `controller` until the returned function is called. */
export function listenForInterrupts(controller: InterruptController): () => void {
  const onSignal = () => controller.interrupt();
  process.on('SIGINT', onSignal);
  return () => process.off('SIGINT', onSignal);
}

/**
 * Asks on the terminal (prompt on stderr, so `--json` output stays clean),
 * holding other output meanwhile. While the question is open the terminal
 * is in raw mode and Ctrl-C arrives as readline's SIGINT, passed to `onInterrupt`.
 */
export function askOnTerminal(question: string, output: Output, onInterrupt: () => void): PendingQuestion {
  output.hold();
  const prompt = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  let settled = false;
  const answer = new Promise<boolean>((resolve) => {
    const finish = (yes: boolean) => {
      if (settled) return;
      settled = true;
      prompt.close();
      output.release();
      resolve(yes);
    };
    prompt.on('SIGINT', onInterrupt);
    prompt.on('close', () => finish(false));
    prompt.question(question, (text) => finish(/^\s*y(es)?\s*$/i.test(text)));
  });
  return {
    answer,
    cancel: () => {
      process.stderr.write('\n');
      prompt.close();
    },
  };
}
