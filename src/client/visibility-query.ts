import { InvalidListQueryError } from './invalid-list-query-error';
/**
 * A caller's visibility query rewritten token by token, strings decoded as Temporal's MySQL tokenizer decodes them and
 * written back canonically, comments, `;` and unknown escapes refused, so it cannot leave the client's parentheses.
 */

/** Escapes Temporal's tokenizer decodes inside a quoted string, and what each stands for. */
const STRING_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', "'": "'", '"': '"' };

/** Comparison operators, longest first so `<=` is not read as `<`. */
const OPERATORS = ['<=', '>=', '!=', '<>', '=', '<', '>'];

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*/;
const NUMBER = /^-?[0-9]+(?:\.[0-9]+)?(?![A-Za-z0-9_.])/;
const QUOTED_IDENTIFIER = /^`[A-Za-z0-9_ .-]+`/;

/** A string value as a single-quoted literal Temporal reads back to the same value. */
export function quoteLiteral(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * The query re-written from its tokens (identifiers, numbers, strings, comparison operators, commas and
 * balanced parentheses), or an {@link InvalidListQueryError} naming the first thing that is none of them.
 */
export function canonicalVisibilityQuery(query: string): string {
  const tokens: string[] = [];
  let depth = 0;
  let position = 0;
  while (position < query.length) {
    const rest = query.slice(position);
    const character = query[position] as string;
    if (/\s/.test(character)) {
      position += 1;
      continue;
    }
    if (character === "'" || character === '"') {
      const { value, end } = readString(query, position);
      tokens.push(quoteLiteral(value));
      position = end;
      continue;
    }
    if (character === '(' || character === ')' || character === ',') {
      depth += character === '(' ? 1 : character === ')' ? -1 : 0;
      if (depth < 0) throw new InvalidListQueryError(`a ")" at character ${position + 1} closes nothing`);
      tokens.push(character);
      position += 1;
      continue;
    }
    const match =
      NUMBER.exec(rest)?.[0] ??
      IDENTIFIER.exec(rest)?.[0] ??
      QUOTED_IDENTIFIER.exec(rest)?.[0] ??
      OPERATORS.find((operator) => rest.startsWith(operator));
    if (match === undefined)
      throw new InvalidListQueryError(
        `${JSON.stringify(character)} at character ${position + 1} is not part of a filter (identifiers, numbers, quoted strings, comparisons, AND/OR/NOT, IN, BETWEEN, IS NULL, parentheses)`,
      );
    tokens.push(match);
    position += match.length;
  }
  if (depth !== 0) throw new InvalidListQueryError('a "(" is never closed');
  return tokens.join(' ');
}

/** The quoted string starting at `start`: its value, decoded as Temporal decodes it, and where it ends. */
function readString(query: string, start: number): { value: string; end: number } {
  const quote = query[start] as string;
  let value = '';
  let position = start + 1;
  while (position < query.length) {
    const character = query[position] as string;
    if (character === '\\') {
      const escaped = query[position + 1];
      const decoded = escaped === undefined ? undefined : STRING_ESCAPES[escaped];
      if (decoded === undefined)
        throw new InvalidListQueryError(
          `the escape at character ${position + 1} is not one of \\\\, \\' and \\" (the only ones a filter may use)`,
        );
      value += decoded;
      position += 2;
    } else if (character === quote) {
      // A doubled quote is the quote itself, as in SQL.
      if (query[position + 1] !== quote) return { value, end: position + 1 };
      value += quote;
      position += 2;
    } else {
      value += character;
      position += 1;
    }
  }
  throw new InvalidListQueryError(`the string opened at character ${start + 1} is never closed`);
}
