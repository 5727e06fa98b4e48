/**
 * Tools.
 * Pure values, imported by workflow code; the runner's defaults are the modules of src/shared/defaults/.
 */

/** Tools of a run that names none (`AGENT_TOOLS` unset): every built-in tool that neither ends the run nor waits for a person. */
export const DEFAULT_AGENT_TOOLS = ['calculator', 'list_files', 'read_file', 'write_file'] as const;

/** What the built-in file tools read and list at most. */
export const FILE_TOOL_LIMITS = {
  /** Most bytes `read_file` reads and returns; a longer file is cut there, with a note. */
  readBytes: 100_000,
  /** Most entries `list_files` returns. */
  listedEntries: 500,
  /** Symbolic links followed at most when resolving a path, as the Linux kernel's own limit. */
  linkHops: 40,
} as const;

/** Longest description of a thrown value kept in a tool's error result. */
export const TOOL_ERROR_DESCRIPTION_CHARS = 2_000;
