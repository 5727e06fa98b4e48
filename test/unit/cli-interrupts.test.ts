import { InterruptController, underTsxCommandLine, type InterruptPolicy } from '../../src/cli/interrupts';

/** A controller whose actions are recorded; questions are answered by the test. */
function controllerFor(policy: InterruptPolicy, options: { mergeRepeatsWithinMs?: number; now?: () => number } = {}) {
  const calls: string[] = [];
  let answer: (yes: boolean) => void = () => undefined;
  const controller = new InterruptController(
    policy,
    'run-1',
    {
      ask: (question) => {
        calls.push(`ask: ${question}`);
        return {
          answer: new Promise<boolean>((resolve) => (answer = resolve)),
          cancel: () => calls.push('cancel question'),
        };
      },
      terminate: async () => {
        calls.push('terminate');
      },
      stopFollowing: () => calls.push('stop following'),
      notice: (text) => calls.push(`notice: ${text}`),
    },
    options,
  );
  return { controller, calls, answer: (yes: boolean) => answer(yes) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('Ctrl-C while following a run', () => {
  test('without a terminal: the first terminates gracefully and following goes on; the second stops following', () => {
    const { controller, calls } = controllerFor('terminate');
    controller.interrupt();
    expect(calls).toEqual([
      'notice: Ctrl-C: asking run run-1 to terminate gracefully. Ctrl-C again stops following and leaves the run as it is.',
      'terminate',
    ]);
    expect(controller.terminationRequested).toBe(true);
    controller.interrupt();
    controller.interrupt();
    expect(calls.slice(2)).toEqual(['stop following']);
  });

  test('on a terminal: it asks; "no" keeps following and the next Ctrl-C asks again', async () => {
    const { controller, calls, answer } = controllerFor('ask');
    controller.interrupt();
    expect(calls).toEqual(['ask: Terminate run run-1 gracefully? [y/N] ']);
    answer(false);
    await settle();
    expect(calls.slice(1)).toEqual(['notice: Still following; the run goes on.']);
    controller.interrupt();
    expect(calls.slice(2)).toEqual(['ask: Terminate run run-1 gracefully? [y/N] ']);
    expect(controller.terminationRequested).toBe(false);
  });

  test('on a terminal: "yes" terminates and following goes on; a later Ctrl-C stops following', async () => {
    const { controller, calls, answer } = controllerFor('ask');
    controller.interrupt();
    answer(true);
    await settle();
    expect(calls.slice(1)).toEqual([
      'notice: Asking run run-1 to terminate gracefully. Ctrl-C again stops following.',
      'terminate',
    ]);
    controller.interrupt();
    expect(calls.slice(3)).toEqual(['stop following']);
  });

  test('on a terminal: a second Ctrl-C while asking withdraws the question and stops following; the run is left alone', async () => {
    const { controller, calls, answer } = controllerFor('ask');
    controller.interrupt();
    controller.interrupt();
    answer(true); // too late: the question was withdrawn
    await settle();
    expect(calls).toEqual(['ask: Terminate run run-1 gracefully? [y/N] ', 'cancel question', 'stop following']);
    expect(controller.terminationRequested).toBe(false);
  });

  test('when the run ends while the question is open, the question is withdrawn and following is not stopped', async () => {
    const { controller, calls, answer } = controllerFor('ask');
    controller.interrupt();
    controller.close();
    answer(false);
    await settle();
    expect(calls).toEqual(['ask: Terminate run run-1 gracefully? [y/N] ', 'cancel question']);
  });

  test('watching: the first Ctrl-C stops following', () => {
    const { controller, calls } = controllerFor('stop');
    controller.interrupt();
    expect(calls).toEqual(['stop following']);
  });

  test('a failed terminate request is reported and following goes on', async () => {
    const notices: string[] = [];
    const controller = new InterruptController('terminate', 'run-1', {
      ask: () => ({ answer: Promise.resolve(false), cancel: () => undefined }),
      terminate: () => Promise.reject(new Error('No run "run-1" exists.')),
      stopFollowing: () => notices.push('stopped'),
      notice: (text) => notices.push(text),
    });
    controller.interrupt();
    await settle();
    expect(notices.at(-1)).toBe('Could not ask the run to terminate: No run "run-1" exists.');
  });

  test('under the tsx command line, a signal relayed right after the first counts as the same Ctrl-C', () => {
    let now = 1_000;
    const { controller, calls } = controllerFor('terminate', { mergeRepeatsWithinMs: 100, now: () => now });
    controller.interrupt();
    now += 40; // tsx's relay of the same key press
    controller.interrupt();
    expect(calls.filter((call) => call === 'stop following')).toEqual([]);
    now += 500; // a deliberate second press
    controller.interrupt();
    expect(calls.at(-1)).toBe('stop following');
  });

  test('tsx is recognised by the preflight script it loads', () => {
    expect(
      underTsxCommandLine([
        '--require',
        '/app/node_modules/tsx/dist/preflight.cjs',
        '--import',
        'file:///app/node_modules/tsx/dist/loader.mjs',
      ]),
    ).toBe(true);
    expect(underTsxCommandLine([])).toBe(false);
  });
});
