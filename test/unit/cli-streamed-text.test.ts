import { createOutput } from '../../src/cli/output';
import { StreamedText } from '../../src/cli/streamed-text';
import type { ModelStreamEvent } from '../../src/shared/model-stream-events';

/** The model's text on the terminal as it comes, written to a string. */
function terminal() {
  let written = '';
  const output = createOutput(false, {
    stdout: { write: (text: string) => (written += text) },
    stderr: { write: () => undefined },
  });
  return { output, text: () => written };
}

const source = { activityId: '3', attempt: 1 };
const text = (value: string, index: number, attempt = 1): ModelStreamEvent => ({
  type: 'model-text-delta',
  ...source,
  attempt,
  index,
  text: value,
});

describe("StreamedText: the model's text as it is generated", () => {
  test('fragments join on one model line, ended when the answer is recorded, which then prints nothing more', () => {
    const { output, text: written } = terminal();
    const streamed = new StreamedText(output);
    streamed.take(text('Hello ', 0));
    streamed.take(text('there.', 1));
    expect(written()).toBe('  model: Hello there.');
    expect(streamed.finish()).toBe(true);
    expect(written()).toBe('  model: Hello there.\n');
    expect(streamed.finish()).toBe(false);
  });

  test('a stream this follower cannot reach is one line saying so; the recorded answer then prints as usual', () => {
    const { output, text: written } = terminal();
    const streamed = new StreamedText(output);
    streamed.take({
      type: 'model-stream-unreachable',
      ...source,
      reason: "the connection to the worker's stream port was refused (ECONNREFUSED)",
    });
    expect(streamed.finish()).toBe(false);
    expect(written()).toBe(
      "  (the model's answers can't stream here: the connection to the worker's stream port was refused (ECONNREFUSED); each shows once it is complete)\n",
    );
  });

  test('a reset ends the line and says to discard it; the retry starts a line of its own', () => {
    const { output, text: written } = terminal();
    const streamed = new StreamedText(output);
    streamed.take(text('Half an', 0));
    streamed.take({
      type: 'model-delta-reset',
      ...source,
      reason: 'the attempt failed; it is retried or the run fails',
    });
    streamed.take(text('Whole answer.', 0, 2));
    streamed.finish();
    expect(written()).toBe(
      '  model: Half an\n  (the answer above broke off: the attempt failed; it is retried or the run fails; discard it)\n  model: Whole answer.\n',
    );
  });

  test('another event in the middle gets a line of its own; multi-line text stays indented; reasoning and tool fragments print nothing', () => {
    const { output, text: written } = terminal();
    const streamed = new StreamedText(output);
    streamed.take({ type: 'model-reasoning-delta', ...source, index: 0, text: 'thinking' });
    streamed.take({ type: 'model-tool-call-delta', ...source, index: 1, toolIndex: 0, name: 'calculator' });
    expect(written()).toBe('');
    streamed.take(text('one\ntwo', 2));
    streamed.breakLine();
    output.line('  user: hi');
    expect(written()).toBe('  model: one\n         two\n  user: hi\n');
  });
});
