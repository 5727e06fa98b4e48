import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { resultText } from '../../src/mcp/call-result';

/** How an MCP tool result reads to the model: text joined, structured content as JSON once, binaries described. */
describe('resultText', () => {
  test('text items are joined by newlines', () => {
    const result = {
      content: [
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ],
    } as CallToolResult;
    expect(resultText(result)).toBe('one\ntwo');
  });

  test('structured content is JSON, and its text copy (whole, or one of its fields) is not repeated', () => {
    const weather = { temperature: 22.5, conditions: 'sunny' };
    expect(
      resultText({ content: [{ type: 'text', text: JSON.stringify(weather, null, 2) }], structuredContent: weather }),
    ).toBe(JSON.stringify(weather));
    // server-filesystem: the file as `{ content }` and again as text.
    expect(resultText({ content: [{ type: 'text', text: 'a\nb' }], structuredContent: { content: 'a\nb' } })).toBe(
      '{"content":"a\\nb"}',
    );
    // Text that says something else is kept.
    expect(resultText({ content: [{ type: 'text', text: 'see above' }], structuredContent: { content: 'a' } })).toBe(
      '{"content":"a"}\nsee above',
    );
  });

  test('images, audio and blob resources are described by type and size, never pasted as base64', () => {
    const data = Buffer.alloc(3_000, 7).toString('base64');
    const text = resultText({
      content: [
        { type: 'image', data, mimeType: 'image/png' },
        { type: 'audio', data, mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///x.bin', blob: data, mimeType: 'application/octet-stream' } },
        { type: 'resource', resource: { uri: 'file:///x.txt', text: 'inside', mimeType: 'text/plain' } },
      ],
    } as CallToolResult);
    expect(text).toBe(
      [
        '[image: image/png, 3 KiB]',
        '[audio: audio/wav, 3 KiB]',
        '[resource <file:///x.bin>, application/octet-stream, 3 KiB]',
        '[resource <file:///x.txt>, text/plain]\ninside',
      ].join('\n'),
    );
    expect(text).not.toContain(data.slice(0, 20));
  });
});
