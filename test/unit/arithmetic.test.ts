import { evaluateArithmetic } from '../../src/tools/builtin/arithmetic';

describe('evaluateArithmetic values', () => {
  test.each([
    ['42', 42],
    ['  7  ', 7],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['3.', 3],
    ['2e3', 2000],
    ['1.5E-3', 0.0015],
    ['.5e1', 5],
    ['2e+2', 200],
  ])('number %j is %p', (source, expected) => {
    expect(evaluateArithmetic(source)).toBe(expected);
  });

  test.each([
    ['2 + 3 * 4', 14],
    ['(2 + 3) * 4', 20],
    ['10 - 4 - 3', 3],
    ['64 / 4 / 2', 8],
    ['7 % 4', 3],
    ['-7 % 4', -3],
    ['2 * 3 % 4', 2],
    ['(2+3)*4^2', 80],
    ['2 * 3 ^ 2', 18],
  ])('precedence and associativity: %j is %p', (source, expected) => {
    expect(evaluateArithmetic(source)).toBe(expected);
  });

  test.each([
    ['2 ^ 3 ^ 2', 512],
    ['-2 ^ 2', -4],
    ['(-2) ^ 2', 4],
    ['2 ^ -1', 0.5],
    ['-2 ^ -2', -0.25],
    ['2 ^ 3 * 2', 16],
  ])('power: %j is %p', (source, expected) => {
    expect(evaluateArithmetic(source)).toBe(expected);
  });

  test.each([
    ['-3', -3],
    ['--3', 3],
    ['+3', 3],
    ['-+3', -3],
    ['2 * -3', -6],
    ['2 - -3', 5],
  ])('unary signs: %j is %p', (source, expected) => {
    expect(evaluateArithmetic(source)).toBe(expected);
  });

  test.each([
    ['sqrt(16)', 4],
    ['abs(-2.5)', 2.5],
    ['round(2.5)', 3],
    ['floor(-1.5)', -2],
    ['ceil(1.2)', 2],
    ['min(3, 1, 2)', 1],
    ['max(3, 1, 2)', 3],
    ['min(5)', 5],
    ['max(1 + 1, 2 * 3)', 6],
    ['sqrt(abs(-16)) + 1', 5],
    ['SQRT(16)', 4],
  ])('function: %j is %p', (source, expected) => {
    expect(evaluateArithmetic(source)).toBe(expected);
  });

  test.each([
    ['pi', Math.PI],
    ['e', Math.E],
    ['PI', Math.PI],
    ['2 * pi', 2 * Math.PI],
  ])('constant: %j is %p', (source, expected) => {
    expect(evaluateArithmetic(source)).toBe(expected);
  });
});

describe('evaluateArithmetic errors', () => {
  test.each(['', '   ', '\n\t'])('the empty expression %j', (source) => {
    expect(() => evaluateArithmetic(source)).toThrow(new Error('the expression is empty'));
  });

  test.each(['1 / 0', '1 % 0', '1 / (2 - 2)', '0 / 0', '5 / -0'])('division by zero in %j', (source) => {
    expect(() => evaluateArithmetic(source)).toThrow(new Error('division by zero'));
  });

  test('an unknown name lists the known constants', () => {
    expect(() => evaluateArithmetic('x + 1')).toThrow(new Error('unknown name "x"; known: pi, e'));
  });

  test('an unknown function lists the known functions', () => {
    expect(() => evaluateArithmetic('log(10)')).toThrow(
      new Error('unknown function "log"; known: sqrt, abs, round, floor, ceil, min, max'),
    );
  });

  test('a constant cannot be called', () => {
    expect(() => evaluateArithmetic('pi(2)')).toThrow(
      new Error('unknown function "pi"; known: sqrt, abs, round, floor, ceil, min, max'),
    );
  });

  test('a one-argument function given two reports its arity', () => {
    expect(() => evaluateArithmetic('sqrt(4, 9)')).toThrow(new Error('sqrt takes 1 argument(s), got 2'));
  });

  test('the arity message uses the lower-cased function name', () => {
    expect(() => evaluateArithmetic('ROUND(1, 2, 3)')).toThrow(new Error('round takes 1 argument(s), got 3'));
  });

  test('a call without arguments reports the closing parenthesis', () => {
    expect(() => evaluateArithmetic('sqrt()')).toThrow(new Error('unexpected ")" at position 6 of "sqrt()"'));
  });

  test('an unexpected character names it and its 1-based position', () => {
    expect(() => evaluateArithmetic('2 $ 3')).toThrow(new Error('unexpected character "$" at position 3'));
  });

  test('an unexpected character at the start is at position 1', () => {
    expect(() => evaluateArithmetic('#1')).toThrow(new Error('unexpected character "#" at position 1'));
  });

  test('a lone dot is an unexpected character', () => {
    expect(() => evaluateArithmetic('1 + .')).toThrow(new Error('unexpected character "." at position 5'));
  });

  test('a trailing number is reported with its value and position', () => {
    expect(() => evaluateArithmetic('2 3')).toThrow(new Error('unexpected number 3 at position 3 of "2 3"'));
  });

  test('a trailing closing parenthesis is reported', () => {
    expect(() => evaluateArithmetic('(1 + 2))')).toThrow(new Error('unexpected ")" at position 8 of "(1 + 2))"'));
  });

  test('a trailing name is reported', () => {
    expect(() => evaluateArithmetic('2 pi')).toThrow(new Error('unexpected "pi" at position 3 of "2 pi"'));
  });

  test('an exponent without digits leaves a trailing name', () => {
    expect(() => evaluateArithmetic('1e')).toThrow(new Error('unexpected "e" at position 2 of "1e"'));
  });

  test('two decimal points split into a trailing number', () => {
    expect(() => evaluateArithmetic('1..2')).toThrow(new Error('unexpected number 0.2 at position 3 of "1..2"'));
  });

  test('an operator where a value belongs is reported with its position', () => {
    expect(() => evaluateArithmetic('* 2')).toThrow(new Error('unexpected "*" at position 1 of "* 2"'));
  });

  test.each(['1 +', '(', '-', '2 ^'])('%j ends too early', (source) => {
    expect(() => evaluateArithmetic(source)).toThrow(new Error('the expression ends too early'));
  });

  test('an unclosed parenthesis expects ")" at the end', () => {
    expect(() => evaluateArithmetic('(1 + 2')).toThrow(new Error('expected ")" at the end'));
  });

  test('an unclosed call expects ")" at the end', () => {
    expect(() => evaluateArithmetic('max(1, 2')).toThrow(new Error('expected ")" at the end'));
  });

  test('a wrong token instead of ")" is named with its position', () => {
    expect(() => evaluateArithmetic('(1 2)')).toThrow(new Error('expected ")" at position 4 of "(1 2)"'));
  });

  test.each(['sqrt(-1)', '10 ^ 400', '-(10 ^ 400)'])('%j is not a finite number', (source) => {
    expect(() => evaluateArithmetic(source)).toThrow(new Error('the result is not a finite number'));
  });
});

describe('names of Object.prototype are not constants or functions', () => {
  test('"constructor" is not a known constant', () => {
    expect(() => evaluateArithmetic('constructor ^ 0')).toThrow(new Error('unknown name "constructor"; known: pi, e'));
  });

  test('"constructor(1)" and "toString(1)" are unknown functions', () => {
    const known = 'known: sqrt, abs, round, floor, ceil, min, max';
    expect(() => evaluateArithmetic('constructor(1)')).toThrow(new Error(`unknown function "constructor"; ${known}`));
    expect(() => evaluateArithmetic('toString(1)')).toThrow(new Error(`unknown function "toString"; ${known}`));
  });
});
