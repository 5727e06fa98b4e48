import { InvalidAgentInputError } from '../../src/client/invalid-agent-input-error';
import { buildAgentInput, loadAgentInput } from '../../src/cli/agent-input-options';
import { UsageError } from '../../src/cli/usage-error';

const defaults = () => ['calculator', 'read_file'];

describe('buildAgentInput', () => {
  test('flags alone: the message words are joined, tools default, terminating tools are added to the tools', () => {
    expect(
      buildAgentInput(
        {},
        ['Tidy', 'the', 'notes'],
        { terminateOn: ['finish'], maxInvocations: 5, approve: 'all', model: 'm' },
        defaults,
      ),
    ).toEqual({
      tools: ['calculator', 'read_file', 'finish'],
      message: 'Tidy the notes',
      model: 'm',
      maxInvocations: 5,
      terminating: { toolIds: ['finish'] },
      approval: { tools: 'all' },
    });
  });

  test('--model and --fallbacks name endpoints: the model and modelFallbacks', () => {
    expect(
      buildAgentInput({}, ['hi'], { model: 'anthropic/claude', fallbacks: ['ollama/qwen3:8b', 'llama'] }, defaults),
    ).toMatchObject({ model: 'anthropic/claude', modelFallbacks: ['ollama/qwen3:8b', 'llama'] });
    expect(buildAgentInput({}, ['hi'], {}, defaults)).not.toHaveProperty('modelFallbacks');
  });

  test('--max-tokens, --temperature and --tool-choice set modelSettings over those of --input', () => {
    const base = { modelSettings: { maxTokens: 10, seed: 4 } };
    expect(
      buildAgentInput(base, ['hi'], { maxTokens: 256, temperature: 0.2, toolChoice: 'required' }, defaults)
        .modelSettings,
    ).toEqual({ maxTokens: 256, seed: 4, temperature: 0.2, toolChoice: 'required' });
    expect(buildAgentInput({}, ['hi'], {}, defaults)).not.toHaveProperty('modelSettings');
  });

  test('flags override the fields of --input and keep the rest of the blocks they touch', () => {
    const base = {
      tools: ['write_file'],
      message: 'from the file',
      instructions: 'be brief',
      terminating: { toolIds: ['task_completion'], consecutiveNudges: 2 },
      approval: { tools: ['write_file'], timeout: '1 hour', onTimeout: 'fail' },
    };
    expect(buildAgentInput(base, [], { terminateOn: ['finish'], approve: ['write_file', 'finish'] }, defaults)).toEqual(
      {
        tools: ['write_file', 'finish'],
        message: 'from the file',
        instructions: 'be brief',
        terminating: { toolIds: ['finish'], consecutiveNudges: 2 },
        approval: { tools: ['write_file', 'finish'], timeout: '1 hour', onTimeout: 'fail' },
      },
    );
  });

  test('the tools of --input are kept over the default, and its terminating tools are added to them', () => {
    expect(
      buildAgentInput({ tools: ['read_file'], terminating: { toolIds: ['finish'] } }, ['go'], {}, defaults).tools,
    ).toEqual(['read_file', 'finish']);
  });
});

describe('loadAgentInput', () => {
  const source = (text: string) => async () => text;

  test('an input that fails the schema throws every problem', async () => {
    const error = await loadAgentInput([], { tools: ['calculator'], approve: ['write_file'] }, source('')).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(InvalidAgentInputError);
    expect((error as InvalidAgentInputError).problems).toEqual([
      'message: give `message`, or a non-empty `messages` to continue a conversation',
      'approval.tools[0]: "write_file" is not one of this run\'s tools (calculator)',
    ]);
  });

  test('--input that is not a JSON object, or cannot be read, is a usage error naming the source', async () => {
    await expect(loadAgentInput([], { input: 'task.json' }, source('[1]'))).rejects.toThrow(
      new UsageError({
        problems: ["--input task.json: expected a JSON object with the run's input (tools, message, ...)"],
      }),
    );
    await expect(loadAgentInput([], { input: '-' }, source('{oops'))).rejects.toThrow(/^--input -: not valid JSON/);
    const unreadable = () => Promise.reject(new Error('ENOENT: no such file'));
    await expect(loadAgentInput([], { input: 'gone.json' }, unreadable)).rejects.toThrow(
      '--input gone.json: cannot read it: ENOENT: no such file',
    );
  });

  test('a valid --input with a message from the command line', async () => {
    const input = await loadAgentInput(
      ['Hello'],
      { input: 'task.json' },
      source('{"tools":["calculator"],"maxInvocations":3}'),
    );
    expect(input).toEqual({ tools: ['calculator'], maxInvocations: 3, message: 'Hello' });
  });

  test('--output-schema reads the schema into output.schema, over the output of --input; --output-mode sets the mode', async () => {
    const files: Record<string, string> = {
      'task.json': '{"tools":["calculator"],"output":{"schema":{"type":"string"},"maxCorrections":1}}',
      'answer.json': '{"type":"object","properties":{"n":{"type":"integer"}}}',
    };
    const read = async (name: string) => files[name] ?? '';
    const input = await loadAgentInput(
      ['Count'],
      { input: 'task.json', outputSchema: 'answer.json', outputMode: 'response_format' },
      read,
    );
    expect(input.output).toEqual({
      schema: { type: 'object', properties: { n: { type: 'integer' } } },
      maxCorrections: 1,
      mode: 'response_format',
    });
  });

  test('--output-schema that is not a JSON object, or not a usable schema, is refused naming the flag or the field', async () => {
    await expect(loadAgentInput(['go'], { tools: [], outputSchema: 's.json' }, source('[]'))).rejects.toThrow(
      new UsageError({ problems: ['--output-schema s.json: expected a JSON Schema object ({"type": "object", ...})'] }),
    );
    const refused = await loadAgentInput(
      ['go'],
      { tools: [], outputSchema: 's.json' },
      source('{"type":"objekt"}'),
    ).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(InvalidAgentInputError);
    expect((refused as InvalidAgentInputError).problems).toEqual([
      expect.stringMatching(/^output\.schema: schema #\/type/),
    ]);
  });
});
