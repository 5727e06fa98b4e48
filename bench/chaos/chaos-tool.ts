import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { defineTool, type ToolDefinition } from '../../src/tools/define-tool';

/** The chaos tool's name, as the chaos agent calls it. */
export const CHAOS_TOOL = 'chaos_step';

/** One line of the side-effect log: one execution of the chaos tool's side effect. */
export interface SideEffectRecord {
  /** The idempotency key the runner gave this execution (`workflowId:callId`). */
  key: string;
  /** Which side effect this is, from the tool's arguments alone: `<run>/<step>.<part>`. */
  effect: string;
  workflowId: string;
  callId: string;
  runId: string;
  attempt: number;
  /** The worker process that performed it (absent in the MCP server's lines). */
  pid?: number;
  /** When the side effect happened (ISO time). */
  at: string;
}

/**
 * `chaos_step`: performs a side effect (one line appended to `logFile`,
 * synchronously, so it is on disk before anything else can happen), keeps
 * working for `workMs` — the window in which a killed worker loses a call
 * whose side effect already happened — and returns a result derived from its
 * arguments alone, so every execution of a call answers the same. With
 * `resultBytes`, the answer carries that many bytes of padding, also derived
 * from the arguments alone: a few such results make the conversation larger
 * than a model call carries inline, so later model calls read it by query.
 */
export function chaosTool(options: { logFile: string; workMs: number; resultBytes?: number }): ToolDefinition {
  return defineTool({
    name: CHAOS_TOOL,
    description: 'One step of a chaos run: records a side effect, works a while, answers from its arguments.',
    parameters: z.object({ run: z.string(), step: z.number().int(), part: z.number().int() }),
    async execute({ run, step, part }, context) {
      const record: SideEffectRecord = {
        key: context.idempotencyKey,
        effect: `${run}/${step}.${part}`,
        workflowId: context.workflowId,
        callId: context.callId,
        runId: context.runId,
        attempt: context.attempt,
        pid: process.pid,
        at: new Date().toISOString(),
      };
      appendFileSync(options.logFile, `${JSON.stringify(record)}\n`);
      await sleep(options.workMs, undefined, { signal: context.signal });
      const digest = checksum(`${run}/${step}/${part}`);
      const answer = `step ${step}.${part} of ${run} done: ${digest}`;
      const padding = options.resultBytes ?? 0;
      return padding > 0 ? `${answer}\n${`${digest} `.repeat(Math.ceil(padding / 9)).slice(0, padding)}` : answer;
    },
  });
}

/** A short deterministic digest, so results differ per call without any randomness. */
function checksum(text: string): string {
  let hash = 2166136261;
  for (const character of text) {
    hash = Math.imul(hash ^ character.charCodeAt(0), 16777619) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
