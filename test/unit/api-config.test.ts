import { loadApiConfig } from '../../src/config/api';
import { turnSettings } from '../../src/api/chat-routes';
import { defaultAgentTools, withTerminatingTools } from '../../src/config/agent-tools';

describe('loadApiConfig', () => {
  test('a token is required, and used when given', () => {
    expect(() => loadApiConfig({})).toThrow(/needs a bearer token: set AGENT_API_TOKEN.*AGENT_API_AUTH=none/);
    expect(loadApiConfig({ AGENT_API_TOKEN: 'a'.repeat(16) })).toMatchObject({
      host: '127.0.0.1',
      port: 3000,
      auth: { token: 'a'.repeat(16) },
      bodyLimit: 1024 * 1024,
      defaults: { tools: ['calculator', 'list_files', 'read_file', 'write_file'] },
    });
  });

  test('authentication is off only when asked for by name, and never together with a token', () => {
    expect(loadApiConfig({ AGENT_API_AUTH: 'none' }).auth).toEqual({ disabled: true });
    expect(() => loadApiConfig({ AGENT_API_AUTH: 'none', AGENT_API_TOKEN: 'a'.repeat(16) })).toThrow(/both set/);
    expect(() => loadApiConfig({ AGENT_API_AUTH: 'off' })).toThrow(/AGENT_API_AUTH="off": expected 'token'/);
  });

  test('every problem is named at once, and the token is never echoed', () => {
    let message = '';
    try {
      loadApiConfig({ AGENT_API_TOKEN: 'tiny-secret', AGENT_API_PORT: 'eighty', AGENT_TOOLS: ' , ' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('AGENT_API_TOKEN=(hidden): use at least 16 characters');
    expect(message).toContain('AGENT_API_PORT="eighty"');
    expect(message).toContain('AGENT_TOOLS=" , ": name at least one tool');
    expect(message).not.toContain('tiny-secret');
  });

  test('agent defaults come from AGENT_TOOLS, AGENT_INSTRUCTIONS and AGENT_MODEL', () => {
    const config = loadApiConfig({
      AGENT_API_AUTH: 'none',
      AGENT_TOOLS: 'calculator, finish,calculator',
      AGENT_INSTRUCTIONS: 'Be brief.',
      AGENT_MODEL: 'gpt-x',
    });
    expect(config.defaults).toEqual({ tools: ['calculator', 'finish'], instructions: 'Be brief.', model: 'gpt-x' });
  });
});

describe('turn settings', () => {
  test("the chat API's terminating_config becomes the run's terminating block, its tools joining the run's", () => {
    expect(
      turnSettings(
        {
          terminating_config: {
            tool_ids: ['finish'],
            consecutive_nudges: 3,
            nudge_message: 'Call finish.',
            max_invocations: 20,
          },
        },
        { tools: ['calculator'] },
      ),
    ).toEqual({
      tools: ['calculator', 'finish'],
      terminating: { toolIds: ['finish'], consecutiveNudges: 3, nudgeMessage: 'Call finish.', maxInvocations: 20 },
    });
  });

  test("the request's choices win over the defaults; null terminating_config means none", () => {
    expect(
      turnSettings(
        { terminating_config: null, tools: ['read_file'], model: 'm', instructions: 'i' },
        { tools: ['calculator'], model: 'd', instructions: 'x' },
      ),
    ).toEqual({
      tools: ['read_file'],
      model: 'm',
      instructions: 'i',
    });
  });

  test('defaultAgentTools and withTerminatingTools', () => {
    expect(defaultAgentTools({})).toEqual(['calculator', 'list_files', 'read_file', 'write_file']);
    expect(withTerminatingTools(['a', 'b'], ['b', 'c'])).toEqual(['a', 'b', 'c']);
  });
});
