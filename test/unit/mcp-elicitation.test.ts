import { elicitationQuestion, elicitResultOf, schemaText, MAX_SCHEMA_CHARS } from '../../src/shared/mcp-elicitation';

/** How a person's text answer becomes the result an MCP server's elicitation gets back. */

const nameOnly = {
  type: 'object',
  properties: { name: { type: 'string', description: 'Your name' } },
  required: ['name'],
};
const form = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Your full name' },
    check: { type: 'boolean' },
    integer: { type: 'integer' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['name'],
};

describe('elicitResultOf', () => {
  test('"decline" and "cancel" alone, in any case, refuse', () => {
    expect(elicitResultOf(' Decline ', form)).toEqual({ action: 'decline' });
    expect(elicitResultOf('CANCEL', form)).toEqual({ action: 'cancel' });
    expect(elicitResultOf('cancel my order', nameOnly)).toEqual({
      action: 'accept',
      content: { name: 'cancel my order' },
    });
  });

  test('a text fills the only field, or the only required one', () => {
    expect(elicitResultOf('Ada', nameOnly)).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(elicitResultOf('Ada', form)).toEqual({ action: 'accept', content: { name: 'Ada' } });
  });

  test('a text is read as the number or boolean the one field takes, or does not fit', () => {
    const count = { type: 'object', properties: { count: { type: 'integer' } } };
    expect(elicitResultOf('42', count)).toEqual({ action: 'accept', content: { count: 42 } });
    expect(elicitResultOf('4.5', count)).toBeUndefined();
    const agree = { type: 'object', properties: { agree: { type: 'boolean' } } };
    expect(elicitResultOf('yes', agree)).toEqual({ action: 'accept', content: { agree: true } });
    expect(elicitResultOf('maybe', agree)).toBeUndefined();
  });

  test('a JSON object is the fields; one with nested objects is not an answer', () => {
    expect(elicitResultOf('{"name":"Ada","check":true,"integer":7,"tags":["a"]}', form)).toEqual({
      action: 'accept',
      content: { name: 'Ada', check: true, integer: 7, tags: ['a'] },
    });
    const twoRequired = { ...form, required: ['name', 'check'] };
    expect(elicitResultOf('{"name":{"first":"Ada"}}', twoRequired)).toBeUndefined();
    expect(elicitResultOf('{"name":{"first":"Ada"}}', nameOnly)).toBeUndefined();
    // Not JSON: the text is the one field's value.
    expect(elicitResultOf('{Ada', nameOnly)).toEqual({ action: 'accept', content: { name: '{Ada' } });
  });

  test('a text with several fields and no single one to fill does not fit', () => {
    expect(elicitResultOf('Ada', { ...form, required: ['name', 'check'] })).toBeUndefined();
  });

  test('a schema without fields accepts any answer with no content', () => {
    expect(elicitResultOf('ok', { type: 'object', properties: {} })).toEqual({ action: 'accept', content: {} });
  });
});

describe('elicitationQuestion', () => {
  test('names the server, lists the fields, and says how to accept, decline or cancel', () => {
    const question = elicitationQuestion('everything', 'Who are you?', form);
    expect(question).toBe(
      'MCP server "everything" asks: Who are you?\n' +
        'Fields: name (string, required), check (boolean), integer (integer), tags (array). ' +
        'Answer with accept (and the fields), decline or cancel: `agent-runner answer`, or the answerElicitation update.',
    );
    expect(elicitationQuestion('s', 'Go on?', {})).toMatch(/\nNo fields to fill\. Answer with accept/);
  });

  test('cuts a long message', () => {
    expect(elicitationQuestion('s', 'x'.repeat(5_000), nameOnly).length).toBeLessThan(2_200);
  });
});

test('schemaText leaves out a schema too long to log', () => {
  expect(schemaText(nameOnly)).toBe(JSON.stringify(nameOnly));
  const huge = { properties: { a: { description: 'x'.repeat(MAX_SCHEMA_CHARS) } } };
  expect(schemaText(huge)).toBeUndefined();
});
