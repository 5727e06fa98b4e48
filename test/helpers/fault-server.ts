import { readFileSync } from 'node:fs';
import path from 'node:path';

/** test/fixtures/mcp/fault-server.mjs: an MCP server over stdio that misbehaves on request. */
export const FAULT_SERVER = path.join(__dirname, '..', 'fixtures', 'mcp', 'fault-server.mjs');

/** One line of the fault server's log: a start, a tools/list page, a call or a call's end. */
export interface FaultRecord {
  pid: number;
  event: 'start' | 'list' | 'call' | 'done';
  tool?: string;
  key?: string;
  label?: string;
  start?: number;
}

/**
 * A stdio entry of `mcpServers` that starts the fault server, logging to `log`.
 * @param env FAULT_EXIT_AT_START, FAULT_TOOL_COUNT, FAULT_PAGE_SIZE, FAULT_HANG_LIST (see the fixture)
 */
export function faultServer(
  log: string,
  env: Record<string, string> = {},
  limits: { timeout?: string; deadline?: string } = {},
) {
  return { command: process.execPath, args: [FAULT_SERVER], env: { FAULT_LOG: log, ...env }, ...limits };
}

/** The records of `log` so far. */
export function faultRecords(log: string): FaultRecord[] {
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as FaultRecord);
}
