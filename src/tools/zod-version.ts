/**
 * Whether `schema` is a zod 3 schema: zod 3 keeps its definition in `_def`, zod 4 in `_zod` (zod 4's classic
 * schemas still answer `_def`, as an alias, so `_zod` is what tells them apart). A zod 3 schema reaching zod 4's
 * `toJSONSchema` fails with `Cannot read properties of undefined (reading 'def')`, which names neither zod nor the tool.
 */
export function isZod3Schema(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && '_def' in schema && !('_zod' in schema);
}

/** Refuses a tool whose `parameters` is not a zod 4 schema, with what to change. */
export function requireZod4Parameters(toolName: string, parameters: unknown): void {
  if (isZod3Schema(parameters)) {
    throw new TypeError(
      `Tool "${toolName}": its parameters are a zod 3 schema; agent-runner requires zod 4. ` +
        "Install zod 4 (npm install zod@^4) and import { z } from 'zod' (or from 'zod/v4' on zod 3.25), not from 'zod/v3'.",
    );
  }
  if (typeof parameters !== 'object' || parameters === null || !('_zod' in parameters)) {
    throw new TypeError(
      `Tool "${toolName}": its parameters must be a zod 4 schema, such as z.object({ ... }) from 'zod'.`,
    );
  }
}
