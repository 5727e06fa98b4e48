import { usageSchema } from '../../../shared/messages';
import { isFinished, type RunRecord } from '../run-record';
import { addRunUsage } from '../run-transitions';
import { callInFlight } from './mcp-elicitations';

/** Longest server or model name the event keeps. */
const MAX_NAME_CHARS = 200;

/**
 * The worker answered an MCP server's sampling request during the call `callId` with its model: the tokens join the
 * run's usage (so its token and cost budgets hold them at the next model call) and an `mcp-sampling` event says so.
 * A report for a call not in flight, or malformed, is ignored. Issues no command, so histories replay.
 */
export function receiveSamplingUsage(run: RunRecord, raw: unknown): void {
  if (typeof raw !== 'object' || raw === null || isFinished(run)) return;
  const { callId, server, model, usage } = raw as Record<string, unknown>;
  if (typeof callId !== 'string' || typeof server !== 'string' || typeof model !== 'string') return;
  const parsed = usageSchema.safeParse(usage);
  if (!parsed.success || !callInFlight(run, callId)) return;
  addRunUsage(run, parsed.data);
  run.events.append('mcp-sampling', {
    callId,
    server: server.slice(0, MAX_NAME_CHARS),
    model: model.slice(0, MAX_NAME_CHARS),
    usage: parsed.data,
  });
}
