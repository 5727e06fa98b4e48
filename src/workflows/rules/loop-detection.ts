import type { LoopAction, LoopDetectionConfig } from '../../shared/loop-guard-schemas';
import type { ToolCall } from '../../shared/messages';

/**
 * Loop detection: {@link trackToolCall} counts identical tool calls in a row, call by call in the model's order.
 * It fires at the threshold and at every multiple of it (3, 6, 9 … by default), so a warning repeats while the loop
 * goes on; `stop` ends the run at the first.
 */
export interface LoopTracker {
  /** Tool of the latest call; null before the first call. */
  toolName: string | null;
  /** Canonical form of the latest call's arguments (see {@link canonicalArgumentsKey}). */
  argumentsKey: string | null;
  /** Identical calls in a row, the latest included. */
  count: number;
}

/** A loop found by {@link trackToolCall}. */
export interface LoopDetection {
  toolName: string;
  /** Identical calls in a row, the latest included: a multiple of the threshold. */
  count: number;
  /** The configured action, for the caller to carry out. */
  action: LoopAction;
}

/** The tracker of a run that has made no tool call yet. */
export function initialLoopTracker(): LoopTracker {
  return { toolName: null, argumentsKey: null, count: 0 };
}

/**
 * Counts `call` against the calls before it (same tool, JSON-equal arguments; else a new count of 1) and returns the
 * new tracker with a detection whenever the count is a multiple of the threshold.
 */
export function trackToolCall(
  tracker: LoopTracker,
  call: ToolCall,
  config: LoopDetectionConfig,
): { tracker: LoopTracker; detection?: LoopDetection } {
  const toolName = call.function.name;
  const argumentsKey = canonicalArgumentsKey(call.function.arguments);
  const same = tracker.toolName === toolName && tracker.argumentsKey === argumentsKey;
  const next: LoopTracker = { toolName, argumentsKey, count: same ? tracker.count + 1 : 1 };
  if (next.count >= config.threshold && next.count % config.threshold === 0) {
    return { tracker: next, detection: { toolName, count: next.count, action: config.action } };
  }
  return { tracker: next };
}

/**
 * The system message of `inject_warning`: the model called `toolName` with
 * identical arguments `count` times and should change its approach.
 */
export function loopWarningMessage(toolName: string, count: number): string {
  return (
    `You have called the tool "${toolName}" with identical arguments ${count} times in a row. ` +
    'Calling it again the same way will not give a different result. ' +
    'Try a different approach: change the arguments, use another tool, or finish with what you have.'
  );
}

/**
 * A key equal for two argument texts exactly when they are JSON-equal (keys sorted at every depth); other text is
 * compared trimmed, an empty text as `{}` (as the runner executes it), and a prefix keeps `"a"` apart from `a`.
 */
export function canonicalArgumentsKey(argumentsText: string): string {
  const trimmed = argumentsText.trim();
  if (trimmed === '') return 'json:{}';
  let value: unknown;
  try {
    value = JSON.parse(trimmed) as unknown;
  } catch {
    return `text:${trimmed}`;
  }
  return `json:${canonicalJson(value)}`;
}

/** JSON text of a parsed value with object keys sorted; built as text so keys like `__proto__` stay plain keys. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item: unknown) => canonicalJson(item)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}
