import { type LoopDetectionConfig } from '../../src/shared/loop-guard-schemas';
import { type ToolCall } from '../../src/shared/messages';
import {
  canonicalArgumentsKey,
  initialLoopTracker,
  loopWarningMessage,
  trackToolCall,
  type LoopTracker,
} from '../../src/workflows/rules/loop-detection';

let nextId = 0;
const call = (name: string, argumentsText: string): ToolCall => ({
  id: `call-${++nextId}`,
  type: 'function',
  function: { name, arguments: argumentsText },
});

/** Feeds `calls` in order; the count and detected action (or null) after each. */
function run(calls: ToolCall[], config: LoopDetectionConfig): { count: number; detected: string | null }[] {
  let tracker: LoopTracker = initialLoopTracker();
  return calls.map((toolCall) => {
    const step = trackToolCall(tracker, toolCall, config);
    tracker = step.tracker;
    return { count: tracker.count, detected: step.detection?.action ?? null };
  });
}

const repeated = (times: number, name = 'read_file', argumentsText = '{"path":"a.txt"}'): ToolCall[] =>
  Array.from({ length: times }, () => call(name, argumentsText));

describe('trackToolCall thresholds', () => {
  const warn: LoopDetectionConfig = { threshold: 3, action: 'warn' };

  test('the initial tracker has no call and count 0', () => {
    expect(initialLoopTracker()).toEqual({ toolName: null, argumentsKey: null, count: 0 });
  });

  test('one below the threshold is not a loop; reaching it is', () => {
    const steps = run(repeated(3), warn);

    expect(steps.map((step) => step.count)).toEqual([1, 2, 3]);
    expect(steps.map((step) => step.detected)).toEqual([null, null, 'warn']);
  });

  test('the detection names the tool, the count and the action', () => {
    let tracker = initialLoopTracker();
    tracker = trackToolCall(tracker, call('search', '{"q":"x"}'), warn).tracker;
    tracker = trackToolCall(tracker, call('search', '{"q":"x"}'), warn).tracker;

    expect(trackToolCall(tracker, call('search', '{"q":"x"}'), warn).detection).toEqual({
      toolName: 'search',
      count: 3,
      action: 'warn',
    });
  });

  test('threshold 2 fires on the second identical call', () => {
    expect(run(repeated(2), { threshold: 2, action: 'stop' }).map((step) => step.detected)).toEqual([null, 'stop']);
  });

  test('inject_warning fires at every multiple of the threshold and only there', () => {
    const steps = run(repeated(10), { threshold: 3, action: 'inject_warning' });
    const firedAt = steps.flatMap((step) => (step.detected === null ? [] : [step.count]));

    expect(firedAt).toEqual([3, 6, 9]);
  });

  test('warn also fires at every multiple of the threshold', () => {
    const firedAt = run(repeated(7), { threshold: 3, action: 'warn' }).flatMap((step) =>
      step.detected ? [step.count] : [],
    );

    expect(firedAt).toEqual([3, 6]);
  });

  test('stop fires first at the threshold', () => {
    const steps = run(repeated(3), { threshold: 3, action: 'stop' });

    expect(steps.map((step) => step.detected)).toEqual([null, null, 'stop']);
  });

  test('the tracker passed in is not modified', () => {
    const tracker = initialLoopTracker();
    trackToolCall(tracker, call('read_file', '{}'), warn);

    expect(tracker).toEqual(initialLoopTracker());
  });
});

describe('trackToolCall resets', () => {
  const warn: LoopDetectionConfig = { threshold: 3, action: 'warn' };

  test('a different tool with the same arguments resets the count to 1', () => {
    const steps = run(
      [call('read_file', '{"path":"a"}'), call('read_file', '{"path":"a"}'), call('stat', '{"path":"a"}')],
      warn,
    );

    expect(steps.map((step) => step.count)).toEqual([1, 2, 1]);
  });

  test('the same tool with different arguments resets the count to 1', () => {
    const steps = run(
      [call('read_file', '{"path":"a"}'), call('read_file', '{"path":"a"}'), call('read_file', '{"path":"b"}')],
      warn,
    );

    expect(steps.map((step) => step.count)).toEqual([1, 2, 1]);
  });

  test('an interruption restarts the count: A A B A A does not fire', () => {
    const a = '{"path":"a"}';
    const steps = run(
      [call('read_file', a), call('read_file', a), call('ls', '{}'), call('read_file', a), call('read_file', a)],
      warn,
    );

    expect(steps.map((step) => step.count)).toEqual([1, 2, 1, 1, 2]);
    expect(steps.every((step) => step.detected === null)).toBe(true);
  });

  test('after a reset the threshold must be reached again from 1', () => {
    const steps = run([...repeated(2), call('ls', '{}'), ...repeated(3)], warn);

    expect(steps.map((step) => step.detected)).toEqual([null, null, null, null, null, 'warn']);
  });
});

describe('identical arguments', () => {
  const stop: LoopDetectionConfig = { threshold: 2, action: 'stop' };
  const firesOn = (first: string, second: string): boolean =>
    run([call('tool', first), call('tool', second)], stop)[1]?.detected === 'stop';

  test('different key order is the same call', () => {
    expect(firesOn('{"a":1,"b":2}', '{"b":2,"a":1}')).toBe(true);
  });

  test('different key order in nested objects and objects inside arrays is the same call', () => {
    expect(firesOn('{"outer":{"x":1,"y":[{"p":1,"q":2}]}}', '{"outer":{"y":[{"q":2,"p":1}],"x":1}}')).toBe(true);
  });

  test('different whitespace is the same call', () => {
    expect(firesOn('{"path": "a.txt",  "lines": [1, 2]}', '\n{"lines":[1,2],"path":"a.txt"}\n')).toBe(true);
  });

  test('numbers written differently but equal in JSON are the same call', () => {
    expect(firesOn('{"n":1.0}', '{"n":1}')).toBe(true);
  });

  test('array order matters', () => {
    expect(firesOn('{"ids":[1,2]}', '{"ids":[2,1]}')).toBe(false);
  });

  test('a different value type is a different call', () => {
    expect(firesOn('{"n":1}', '{"n":"1"}')).toBe(false);
  });

  test('non-JSON text is compared trimmed', () => {
    expect(firesOn('not json {', '  not json {\n')).toBe(true);
  });

  test('non-JSON text differing inside is a different call', () => {
    expect(firesOn('not json {', 'not  json {')).toBe(false);
  });

  test('the JSON string "a" and the raw text a are different calls', () => {
    expect(firesOn('"a"', 'a')).toBe(false);
  });

  test('an empty argument text is the same call as {}', () => {
    expect(firesOn('', '{}')).toBe(true);
  });

  test('canonicalArgumentsKey sorts keys and drops whitespace', () => {
    expect(canonicalArgumentsKey(' { "b": [ {"d":1,"c":2} ], "a": null } ')).toBe(
      'json:{"a":null,"b":[{"c":2,"d":1}]}',
    );
  });

  test('canonicalArgumentsKey keeps a __proto__ key as a plain key', () => {
    expect(canonicalArgumentsKey('{"__proto__":{"x":1},"a":2}')).toBe('json:{"__proto__":{"x":1},"a":2}');
  });

  test('canonicalArgumentsKey of non-JSON text is the trimmed text', () => {
    expect(canonicalArgumentsKey('  path=a.txt ')).toBe('text:path=a.txt');
  });
});

describe('loopWarningMessage', () => {
  test('names the tool and the count and asks for a different approach', () => {
    const message = loopWarningMessage('read_file', 6);

    expect(message).toContain('"read_file"');
    expect(message).toContain('identical arguments 6 times');
    expect(message).toContain('Try a different approach');
  });
});
