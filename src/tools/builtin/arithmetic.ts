/**
 * A recursive-descent evaluator, so the calculator never hands model text to `eval` or `Function`.
 *   expression := term (("+" | "-") term)*
 *   term       := unary (("*" | "/" | "%") unary)*
 *   unary      := ("+" | "-") unary | power
 *   power      := primary ("^" unary)?          right-associative; -2^2 = -4
 *   primary    := number | name | name "(" arguments ")" | "(" expression ")"
 */

const CONSTANTS = new Map<string, number>([
  ['pi', Math.PI],
  ['e', Math.E],
]);

// Maps, not object literals: a name like "constructor" must not find Object.prototype's.
const FUNCTIONS = new Map<string, { arity: [number, number]; apply: (...values: number[]) => number }>([
  ['sqrt', { arity: [1, 1], apply: Math.sqrt }],
  ['abs', { arity: [1, 1], apply: Math.abs }],
  ['round', { arity: [1, 1], apply: Math.round }],
  ['floor', { arity: [1, 1], apply: Math.floor }],
  ['ceil', { arity: [1, 1], apply: Math.ceil }],
  ['min', { arity: [1, Infinity], apply: Math.min }],
  ['max', { arity: [1, Infinity], apply: Math.max }],
]);

type Token = { kind: 'number'; value: number; at: number } | { kind: 'name' | 'symbol'; text: string; at: number };

/** Evaluates `source`; throws an `Error` that says what is wrong and where. */
export function evaluateArithmetic(source: string): number {
  const tokens = tokenize(source);
  let position = 0;

  const peek = (): Token | undefined => tokens[position];
  const isSymbol = (text: string): boolean => {
    const token = peek();
    return token?.kind === 'symbol' && token.text === text;
  };
  const expect = (text: string): void => {
    if (!isSymbol(text)) throw new Error(`expected "${text}" ${where(peek(), source)}`);
    position += 1;
  };

  const expression = (): number => {
    let value = term();
    while (isSymbol('+') || isSymbol('-')) {
      const operator = (tokens[position++] as { text: string }).text;
      const right = term();
      value = operator === '+' ? value + right : value - right;
    }
    return value;
  };
  const term = (): number => {
    let value = unary();
    while (isSymbol('*') || isSymbol('/') || isSymbol('%')) {
      const operator = (tokens[position++] as { text: string }).text;
      const right = unary();
      if ((operator === '/' || operator === '%') && right === 0) throw new Error('division by zero');
      value = operator === '*' ? value * right : operator === '/' ? value / right : value % right;
    }
    return value;
  };
  const unary = (): number => {
    if (isSymbol('-')) {
      position += 1;
      return -unary();
    }
    if (isSymbol('+')) {
      position += 1;
      return unary();
    }
    return power();
  };
  const power = (): number => {
    const base = primary();
    if (!isSymbol('^')) return base;
    position += 1;
    return base ** unary();
  };
  const primary = (): number => {
    const token = peek();
    if (token === undefined) throw new Error('the expression ends too early');
    position += 1;
    if (token.kind === 'number') return token.value;
    if (token.kind === 'symbol') {
      if (token.text !== '(') throw new Error(`unexpected "${token.text}" ${where(token, source)}`);
      const value = expression();
      expect(')');
      return value;
    }
    const name = token.text.toLowerCase();
    if (!isSymbol('(')) {
      const constant = CONSTANTS.get(name);
      if (constant === undefined)
        throw new Error(`unknown name "${token.text}"; known: ${[...CONSTANTS.keys()].join(', ')}`);
      return constant;
    }
    const fn = FUNCTIONS.get(name);
    if (fn === undefined)
      throw new Error(`unknown function "${token.text}"; known: ${[...FUNCTIONS.keys()].join(', ')}`);
    position += 1;
    const values = [expression()];
    while (isSymbol(',')) {
      position += 1;
      values.push(expression());
    }
    expect(')');
    const [least, most] = fn.arity;
    if (values.length < least || values.length > most) {
      throw new Error(`${name} takes ${least === most ? least : `${least} or more`} argument(s), got ${values.length}`);
    }
    return fn.apply(...values);
  };

  const value = expression();
  if (position < tokens.length)
    throw new Error(`unexpected ${describe(tokens[position])} ${where(tokens[position], source)}`);
  if (!Number.isFinite(value)) throw new Error('the result is not a finite number');
  return value;
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s*(?:(\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|([a-zA-Z_]\w*)|([-+*/%^(),]))/y;
  let index = 0;
  while (index < source.length) {
    if (/^\s*$/.test(source.slice(index))) break;
    pattern.lastIndex = index;
    const match = pattern.exec(source);
    if (match === null) {
      const at = index + (source.slice(index).length - source.slice(index).trimStart().length);
      throw new Error(`unexpected character "${source[at] ?? ''}" at position ${at + 1}`);
    }
    const at = pattern.lastIndex - match[0].trimStart().length;
    if (match[1] !== undefined) tokens.push({ kind: 'number', value: Number(match[1]), at });
    else if (match[2] !== undefined) tokens.push({ kind: 'name', text: match[2], at });
    else tokens.push({ kind: 'symbol', text: match[3] ?? '', at });
    index = pattern.lastIndex;
  }
  if (tokens.length === 0) throw new Error('the expression is empty');
  return tokens;
}

function describe(token: Token | undefined): string {
  if (token === undefined) return 'end of expression';
  return token.kind === 'number' ? `number ${token.value}` : `"${token.text}"`;
}

function where(token: Token | undefined, source: string): string {
  return token === undefined ? 'at the end' : `at position ${token.at + 1} of "${source}"`;
}
