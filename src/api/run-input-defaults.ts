import { withTerminatingTools } from '../config/agent-tools';

/**
 * `POST /runs`'s body with the API's default tools in an `input` that names none (its terminating tools join them),
 * so the body is checked as the run will get it; anything else is returned as it came, for the check to refuse.
 */
export function withDefaultTools(body: unknown, defaultTools: readonly string[]): unknown {
  if (!isObject(body) || !isObject(body.input) || body.input.tools !== undefined) return body;
  const terminating = body.input.terminating;
  const toolIds = isObject(terminating) && Array.isArray(terminating.toolIds) ? terminating.toolIds : [];
  const named = toolIds.filter((name): name is string => typeof name === 'string');
  return { ...body, input: { ...body.input, tools: withTerminatingTools(defaultTools, named) } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
