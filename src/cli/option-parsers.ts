import { InvalidArgumentError } from 'commander';
import { deciderNameSchema } from '../shared/control';

/**
 * Parsers for option values. Commander calls them while it reads the
 * command line, so a bad value is reported as a usage error naming the
 * option, before anything is sent to Temporal.
 */

/** `a,b , c` → `['a', 'b', 'c']`; at least one name. */
export function parseNameList(value: string): string[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0)
    throw new InvalidArgumentError('expected one or more comma-separated names, for example read_file,write_file');
  return [...new Set(names)];
}

/** `all`, or a comma-separated list of tool names. */
export function parseApprovalTools(value: string): string[] | 'all' {
  return value.trim().toLowerCase() === 'all' ? 'all' : parseNameList(value);
}

/** A whole number of at least 1. */
export function parsePositiveInteger(value: string): number {
  const number = parseWholeNumber(value);
  if (number < 1) throw new InvalidArgumentError('expected a whole number of at least 1');
  return number;
}

/** A whole number of at least 0. */
export function parseNonNegativeInteger(value: string): number {
  return parseWholeNumber(value);
}

/** A decimal number (`0.2`, `1`); its bounds are the schema's to check. */
export function parseDecimal(value: string): number {
  if (!/^\s*\d+(\.\d+)?\s*$/.test(value)) throw new InvalidArgumentError('expected a number, for example 0.2');
  return Number(value);
}

/** `auto`, `required` or `none`: the run's `modelSettings.toolChoice`. */
export function parseToolChoice(value: string): 'auto' | 'required' | 'none' {
  const choice = value.trim().toLowerCase();
  if (choice === 'auto' || choice === 'required' || choice === 'none') return choice;
  throw new InvalidArgumentError('expected auto, required or none');
}

/** A JSON object, as replacement arguments of a tool call are. */
export function parseJsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new InvalidArgumentError(`expected a JSON object: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InvalidArgumentError('expected a JSON object, for example \'{"path":"notes.md"}\'');
  }
  return parsed as Record<string, unknown>;
}

function parseWholeNumber(value: string): number {
  if (!/^\s*\d+\s*$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  const number = Number(value);
  if (!Number.isSafeInteger(number)) throw new InvalidArgumentError('the number is too large');
  return number;
}

/** A TCP port, 0 to 65535 (0: a free one). */
export function parsePort(value: string): number {
  const number = parseWholeNumber(value);
  if (number > 65_535) throw new InvalidArgumentError('expected a port from 0 to 65535');
  return number;
}

/** A decider's name (`--as`): what the run records as who decided. */
export function parseDeciderName(value: string): string {
  const parsed = deciderNameSchema.safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError(parsed.error.issues.map((issue) => issue.message).join('; '));
  return parsed.data;
}
