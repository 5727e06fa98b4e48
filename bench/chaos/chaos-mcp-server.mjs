// The chaos runs' MCP server, started over stdio by each chaos worker (bench/chaos/worker-process.ts): plain
// JavaScript run by node, so a restarted worker gets it back in a fraction of a second. Its one tool, `step`, does
// what `chaos_step` does (chaos-tool.ts): appends a side effect to CHAOS_SIDE_EFFECT_LOG, synchronously, with the
// idempotency key the runner sent in `_meta`, works CHAOS_TOOL_WORK_MS, and answers from its arguments alone. Each
// start appends its process id to CHAOS_MCP_PID_LOG, so the harness can tell whether a killed worker left one behind.
import { appendFileSync } from 'node:fs';
import process from 'node:process';
import { setTimeout } from 'node:timers';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const workMs = Number(process.env.CHAOS_TOOL_WORK_MS ?? 1000);
const server = new Server({ name: 'chaos', version: '1.0.0' }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'step',
      description:
        'One step of a chaos run over MCP: records a side effect, works a while, answers from its arguments.',
      inputSchema: {
        type: 'object',
        properties: { run: { type: 'string' }, step: { type: 'integer' }, part: { type: 'integer' } },
        required: ['run', 'step', 'part'],
      },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { run, step, part } = request.params.arguments ?? {};
  const key = String(request.params._meta?.['agent-runner/idempotency-key'] ?? '');
  // The runner's key is `<workflow id>:<run id>:<call id>`.
  const [callId = '', runId = '', ...workflow] = key.split(':').reverse();
  appendFileSync(
    process.env.CHAOS_SIDE_EFFECT_LOG,
    `${JSON.stringify({
      key,
      effect: `mcp:${run}/${step}.${part}`,
      workflowId: workflow.reverse().join(':'),
      callId,
      runId,
      attempt: 0, // MCP does not say which attempt this is
      at: new Date().toISOString(),
    })}\n`,
  );
  await new Promise((resolve) => setTimeout(resolve, workMs));
  return {
    content: [{ type: 'text', text: `mcp step ${step}.${part} of ${run} done: ${checksum(`${run}/${step}/${part}`)}` }],
  };
});

/** The chaos tool's digest (FNV-1a), so results differ per call without any randomness. */
function checksum(text) {
  let hash = 2166136261;
  for (const character of text) hash = Math.imul(hash ^ character.charCodeAt(0), 16777619) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

// A killed worker closes our stdin: end with it rather than live on as an orphan.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));

if (process.env.CHAOS_MCP_PID_LOG) appendFileSync(process.env.CHAOS_MCP_PID_LOG, `${process.pid}\n`);
await server.connect(new StdioServerTransport());
