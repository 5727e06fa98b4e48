import { readFileSync } from 'node:fs';
import path from 'node:path';
import { HTTP_STATUS_OF, answerForFailure, toApiError } from '../../src/api/errors';
import { EXIT_CODE_OF_FAILURE, ExitCode, exitCodeForOutcome } from '../../src/cli/exit-codes';
import { ChatTurnFailedError } from '../../src/client/conversations';
import { ConversationFailure } from '../../src/shared/conversation';
import { FAILURE_CATALOGUE, FAILURE_TYPES, FailureType, isFailureType } from '../../src/shared/failure-catalogue';

/**
 * One catalogue of failure types; every surface that maps them is typed
 * against it (a `Record` over the union does not compile with a type left
 * out), and these tests hold the values: the API's answers as they were
 * before the table was typed, the CLI's exit codes, and the README's table.
 */

/** The API's answers by failure type before the catalogue: these must not change. */
const ANSWERS_BEFORE_THE_CATALOGUE = {
  MaxInvocationsExceeded: { status: 422, code: 'max_invocations_exceeded' },
  MaxConsecutiveNudgesExceeded: { status: 422, code: 'max_consecutive_nudges_exceeded' },
  TokenBudgetExhausted: { status: 422, code: 'token_budget_exhausted' },
  CostBudgetExceeded: { status: 422, code: 'cost_budget_exceeded' },
  ApprovalTimedOut: { status: 422, code: 'approval_timed_out' },
  ContextTooLarge: { status: 422, code: 'context_too_large' },
  HistoryTooLarge: { status: 422, code: 'history_too_large' },
  ConversationTooLarge: { status: 409, code: 'conversation_too_large' },
  InvalidAgentInput: { status: 400, code: 'invalid_agent_input' },
  ConversationBusy: { status: 409, code: 'conversation_busy' },
  ConversationEnded: { status: 409, code: 'conversation_ending' },
  ConversationEmpty: { status: 409, code: 'conversation_empty' },
  InvalidChatRequest: { status: 400, code: 'invalid_body' },
  TurnTerminated: { status: 409, code: 'turn_terminated' },
};

describe('the failure catalogue', () => {
  test('names each type once, and describes every one', () => {
    expect(new Set(FAILURE_TYPES).size).toBe(FAILURE_TYPES.length);
    expect(Object.keys(FAILURE_CATALOGUE)).toEqual([...FAILURE_TYPES]);
    for (const type of FAILURE_TYPES) expect(FAILURE_CATALOGUE[type].when).not.toBe('');
    expect(FAILURE_TYPES).toHaveLength(42);
  });

  test('holds the types the runner raises, spelled as on the wire', () => {
    expect(FAILURE_TYPES).toEqual(
      expect.arrayContaining([
        'InvalidAgentInput', 'MaxInvocationsExceeded', 'MaxConsecutiveNudgesExceeded', 'TokenBudgetExhausted', 'ApprovalTimedOut',
        'ContextTooLarge', 'HistoryTooLarge', 'InvalidDecision', 'InvalidLimits', 'ModelCall.RateLimited', 'ModelCall.Unauthorized',
        'ModelCall.InvalidResponse', 'ModelCall.StreamInterrupted', 'ModelCall.Timeout', 'ModelCall.Failed', 'ToolCall.Retryable', 'MaxDepthExceeded', 'ConversationBusy', 'TurnFailed',
        'WorkflowTimedOut', 'Error', 'CompactionFailed', 'CostBudgetExceeded', 'ModelCall.PriceUnknown',
      ]),
    );
    // The conversation's refusals are the catalogue's.
    for (const type of Object.values(ConversationFailure)) expect(isFailureType(type)).toBe(true);
  });

  test('isFailureType knows the catalogue and nothing else', () => {
    expect(FAILURE_TYPES.every(isFailureType)).toBe(true);
    expect(isFailureType('ModelCall.Future')).toBe(false);
    expect(isFailureType('toString')).toBe(false);
  });
});

describe("the API's answer for each failure type", () => {
  test('covers the catalogue, and nothing else', () => {
    expect(Object.keys(HTTP_STATUS_OF).sort()).toEqual([...FAILURE_TYPES].sort());
  });

  test('the types mapped before keep their status and code', () => {
    expect(HTTP_STATUS_OF).toMatchObject(ANSWERS_BEFORE_THE_CATALOGUE);
  });

  test('the rest keep the default they fell through to: 502 model_call_failed for ModelCall.* (and the compaction call), else 500 run_failed', () => {
    for (const type of FAILURE_TYPES.filter((name) => !(name in ANSWERS_BEFORE_THE_CATALOGUE))) {
      const modelCall = type.startsWith('ModelCall.') || type === 'CompactionFailed';
      const expected = modelCall ? { status: 502, code: 'model_call_failed' } : { status: 500, code: 'run_failed' };
      expect({ type, ...HTTP_STATUS_OF[type] }).toEqual({ type, ...expected });
    }
  });

  test('a type outside the catalogue (a worker of another version) answers as before', () => {
    expect(answerForFailure('ModelCall.Future')).toEqual({ status: 502, code: 'model_call_failed' });
    expect(answerForFailure('SomethingElse')).toEqual({ status: 500, code: 'run_failed' });
  });

  test.each([
    [FailureType.maxInvocationsExceeded, 422, 'max_invocations_exceeded'],
    [FailureType.modelCallUnauthorized, 502, 'model_call_failed'],
    [FailureType.conversationBusy, 409, 'conversation_busy'],
    [FailureType.turnFailed, 500, 'run_failed'],
    ['NotInTheCatalogue', 500, 'run_failed'],
  ])('a chat turn failed with %s answers %i %s, with the type and run in its details', (type, status, code) => {
    const answer = toApiError(new ChatTurnFailedError('the message', type, 'run-1', ['a problem']), 'req-1');

    expect(answer).toMatchObject({ statusCode: status, code, message: 'the message', details: { type, run_id: 'run-1', problems: ['a problem'] } });
  });
});

describe("the CLI's exit code for each failure type", () => {
  test('covers the catalogue, and nothing else', () => {
    expect(Object.keys(EXIT_CODE_OF_FAILURE).sort()).toEqual([...FAILURE_TYPES].sort());
  });

  test('InvalidAgentInput is a usage error (2); every other failure, in the catalogue or not, a failed run (1)', () => {
    for (const type of [...FAILURE_TYPES, 'TimeoutFailure']) {
      const expected = type === 'InvalidAgentInput' ? ExitCode.usage : ExitCode.runFailed;
      expect({ type, code: exitCodeForOutcome({ kind: 'failed', type, message: '', details: [] }) }).toEqual({ type, code: expected });
    }
  });
});

describe("the README's failure table", () => {
  /** The table the README must hold, row for row, from the catalogue and the two mappings. */
  function catalogueTable(): string[] {
    return [
      '| type | raised by | when | HTTP answer (chat turn) | CLI exit |',
      '| --- | --- | --- | --- | --- |',
      ...FAILURE_TYPES.map((type) => {
        const { raisedBy, when } = FAILURE_CATALOGUE[type];
        const { status, code } = HTTP_STATUS_OF[type];
        return `| \`${type}\` | ${raisedBy} | ${when} | ${status} \`${code}\` | ${EXIT_CODE_OF_FAILURE[type]} |`;
      }),
    ];
  }

  test('lists every catalogue type, with its description, HTTP answer and exit code', () => {
    const readme = readFileSync(path.join(__dirname, '../../README.md'), 'utf8').split('\n');
    const start = readme.indexOf(catalogueTable()[0]!);
    expect(start).toBeGreaterThan(-1);
    const end = readme.findIndex((line, index) => index > start && !line.startsWith('|'));
    expect(readme.slice(start, end)).toEqual(catalogueTable());
  });
});
