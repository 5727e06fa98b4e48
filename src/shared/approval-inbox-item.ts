/** One tool call that waits for a person's decision, as the console's inbox lists it (`/console/api/approvals`). */
export interface InboxItem {
  run_id: string;
  call_id: string;
  tool_name: string;
  /** The exact arguments under review, as the run recorded them. */
  arguments: unknown;
  requested_at: string;
  /** The approval policy that asked a person, and why, when one did. */
  policy?: string;
  reason?: string;
  /** The tool's JSON Schema from the run's catalog, which the console's editor checks modified arguments against. */
  parameters?: Record<string, unknown>;
}
