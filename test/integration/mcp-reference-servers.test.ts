import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AgentResult } from '../../src/shared/agent-result';
import type { ChatMessage } from '../../src/shared/messages';
import { filesystemServer, memoryServer } from '../helpers/mcp-servers';
import { TestEnv } from '../helpers/test-env';

/**
 * Two more reference servers from the npm registry, started by the worker over stdio: the scripted model lists,
 * reads and writes files in a temporary directory through `@modelcontextprotocol/server-filesystem`, and keeps a
 * knowledge graph in `@modelcontextprotocol/server-memory` that a later call (of a later run) reads back.
 */

let env: TestEnv;
let directory: string;
let memoryFile: string;
beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'mcp-files-'));
  memoryFile = path.join(await mkdtemp(path.join(os.tmpdir(), 'mcp-memory-')), 'memory.jsonl');
  await writeFile(path.join(directory, 'notes.txt'), 'the build is green\n');
  env = await TestEnv.create({ mcpServers: { files: filesystemServer(directory), memory: memoryServer(memoryFile) } });
}, 120_000);
afterAll(async () => {
  await env?.close();
});

function toolResults(result: AgentResult): string[] {
  return result.messages.flatMap((message: ChatMessage) => (message.role === 'tool' ? [String(message.content)] : []));
}

describe('server-filesystem', () => {
  test('the model lists a directory, reads a file and writes one; the file is on disk', async () => {
    const model = env.scenario([
      {
        toolCalls: [
          { name: 'files__list_directory', arguments: { path: directory } },
          { name: 'files__read_text_file', arguments: { path: path.join(directory, 'notes.txt') } },
        ],
      },
      {
        toolCalls: [
          {
            name: 'files__write_file',
            arguments: { path: path.join(directory, 'report.txt'), content: 'written by the model' },
          },
        ],
      },
      { toolCalls: [{ name: 'files__list_directory', arguments: { path: directory } }] },
      { content: 'done' },
    ]);
    const result = await env.run({ model, tools: ['files__*'], message: 'tidy up', resultMessages: 'all' });
    const [listed, read, written, listedAgain] = toolResults(result);
    expect(listed).toContain('[FILE] notes.txt');
    expect(read).toContain('the build is green');
    expect(written).toContain(`Successfully wrote to ${path.join(directory, 'report.txt')}`);
    expect(listedAgain).toContain('[FILE] report.txt');
    expect(await readFile(path.join(directory, 'report.txt'), 'utf8')).toBe('written by the model');
  });

  test("a path outside the server's directory is the server's error, which the model reads", async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'files__read_text_file', arguments: { path: '/etc/passwd' } }] },
      { content: 'refused' },
    ]);
    const result = await env.run({
      model,
      tools: ['files__read_text_file'],
      message: 'read it',
      resultMessages: 'all',
    });
    const [answer] = toolResults(result);
    // isError: true is the tool's error, as the model reads any tool's.
    expect(answer).toMatch(/^Error: .*(Access denied|outside allowed directories)/is);
    expect(answer).not.toContain('root:');
    expect(result.response).toBe('refused');
  });
});

describe('server-memory', () => {
  test('entities created in one run are read back from the graph in a later run', async () => {
    const writer = env.scenario([
      {
        toolCalls: [
          {
            name: 'memory__create_entities',
            arguments: {
              entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
            },
          },
        ],
      },
      { content: 'remembered' },
    ]);
    const first = await env.run({
      model: writer,
      tools: ['memory__*'],
      message: 'remember Ada',
      resultMessages: 'all',
    });
    expect(toolResults(first)[0]).toContain('Ada');

    const reader = env.scenario([{ toolCalls: [{ name: 'memory__read_graph', arguments: {} }] }, { content: 'read' }]);
    const second = await env.run({
      model: reader,
      tools: ['memory__read_graph'],
      message: 'who?',
      resultMessages: 'all',
    });
    const graph = JSON.parse(toolResults(second)[0]!) as { entities: { name: string; observations: string[] }[] };
    expect(graph.entities).toEqual([
      expect.objectContaining({ name: 'Ada', observations: ['wrote the first program'] }),
    ]);
    // The server kept it in its own file.
    expect(await readFile(memoryFile, 'utf8')).toContain('wrote the first program');
  });
});
