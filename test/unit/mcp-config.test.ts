import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configuredSecrets, loadWorkerConfig } from '../../src/config';
import { ConfigError } from '../../src/config/config-error';
import { loadMcpServers } from '../../src/config/mcp';
import { parseMcpServers } from '../../src/config/mcp-servers';
import { AgentRunnerPlugin } from '../../src/worker/plugin';

/** `AGENT_MCP_CONFIG` as `npm run worker` loads it, and `mcpServers` as the worker option checks it. */

const directory = mkdtempSync(path.join(os.tmpdir(), 'mcp-config-'));
let files = 0;
/** A config file holding `content` (an object as JSON, a string as it is). */
function configFile(content: unknown): string {
  const file = path.join(directory, `mcp-${++files}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('AGENT_MCP_CONFIG', () => {
  test('a file in the format MCP clients write: stdio and HTTP servers, approval, timeout; disabled ones left out', () => {
    const file = configFile({
      mcpServers: {
        files: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv'],
          env: { FILES_TOKEN: 'files-secret-1234' },
          approval: ['write_file'],
          timeout: '30s',
        },
        search: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer search-secret-5678' } },
        old: { command: 'old-server', disabled: true },
      },
    });
    const config = loadWorkerConfig({ OPENAI_API_KEY: 'sk-test', AGENT_MCP_CONFIG: file });
    expect(config.mcpServers).toEqual({
      files: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv'],
        env: { FILES_TOKEN: 'files-secret-1234' },
        approval: ['write_file'],
        timeout: '30s',
      },
      search: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer search-secret-5678' } },
    });
    // Their credentials are among the secrets the worker's log and failures are redacted of.
    expect(configuredSecrets({ OPENAI_API_KEY: 'sk-test', AGENT_MCP_CONFIG: file })).toEqual(
      expect.arrayContaining(['files-secret-1234', 'Bearer search-secret-5678', 'search-secret-5678']),
    );
  });

  test('unset: no servers', () => {
    expect(loadMcpServers({})).toEqual({});
  });

  test('a file that is not JSON, or has no mcpServers, is a ConfigError naming the file', () => {
    const broken = configFile('{ "mcpServers": { ');
    expect(() => loadMcpServers({ AGENT_MCP_CONFIG: broken })).toThrow(ConfigError);
    expect(() => loadMcpServers({ AGENT_MCP_CONFIG: broken })).toThrow(
      new RegExp(`^AGENT_MCP_CONFIG: cannot read ${broken} as JSON \\(`),
    );
    const missing = path.join(directory, 'absent.json');
    expect(() => loadMcpServers({ AGENT_MCP_CONFIG: missing })).toThrow(/cannot read .*absent\.json as JSON \(ENOENT/);
    const empty = configFile({ servers: {} });
    expect(() => loadMcpServers({ AGENT_MCP_CONFIG: empty })).toThrow(
      `AGENT_MCP_CONFIG: ${empty} has no "mcpServers" object.`,
    );
  });

  test('a bad entry names the file, the server and the field', () => {
    const file = configFile({
      mcpServers: {
        files: { command: '', args: 'not-an-array' },
        web: { url: 'ftp://example.com/mcp' },
        typo: { command: 'x', evn: { A: 'b' } },
      },
    });
    let message = '';
    try {
      loadMcpServers({ AGENT_MCP_CONFIG: file });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message).toContain('The MCP server configuration is not valid:');
    expect(message).toContain(`${file}: mcpServers.files.command: name the program that starts the server`);
    expect(message).toContain(`${file}: mcpServers.files.args: `);
    expect(message).toContain(`${file}: mcpServers.web.url: give the server's http(s) URL`);
    expect(message).toMatch(/mcpServers\.typo: .*"evn"/);
    // Checked across fields once every entry is well formed.
    const slow = configFile({ mcpServers: { slow: { command: 'x', timeout: '1m', deadline: '10s' } } });
    expect(() => loadMcpServers({ AGENT_MCP_CONFIG: slow })).toThrow(
      `${slow}: mcpServers.slow.deadline: the deadline (all attempts) cannot be shorter than the timeout (one attempt)`,
    );
  });

  test('the SSE transport is refused, pointing at Streamable HTTP', () => {
    const file = configFile({ mcpServers: { legacy: { type: 'sse', url: 'http://127.0.0.1:3001/sse' } } });
    expect(() => loadMcpServers({ AGENT_MCP_CONFIG: file })).toThrow(
      `${file}: mcpServers.legacy: the SSE transport is deprecated in MCP and not supported: use the server's Streamable HTTP URL`,
    );
  });
});

describe('server names', () => {
  test('a name that cannot prefix a tool name is refused, saying why', () => {
    expect(() => parseMcpServers({ my__files: { command: 'x' } })).toThrow(
      /mcpServers\.my__files: "my__files" must be letters, digits, "-" and single "_" between them \(no "__"/,
    );
    expect(() => parseMcpServers({ 'with space': { command: 'x' } })).toThrow(/"with space" must be letters/);
    expect(() => parseMcpServers({ ['x'.repeat(33)]: { command: 'x' } })).toThrow(/is longer than 32 characters/);
    expect(parseMcpServers({ 'my-files_v2': { command: 'x' } })).toEqual({ 'my-files_v2': { command: 'x' } });
  });

  test('AgentRunnerPlugin (and so createAgentWorker) refuses a bad name at construction with a TypeError', () => {
    const construct = () =>
      new AgentRunnerPlugin({
        tools: [],
        model: { apiKey: 'sk-test', defaultModel: 'gpt-4o-mini' },
        mcpServers: { bad__name: { command: 'x' } },
        streamListener: false,
        tracing: false,
      });
    expect(construct).toThrow(TypeError);
    expect(construct).toThrow(/mcpServers\.bad__name: "bad__name" must be letters/);
  });
});
