import { ApiError } from '../http/api-error';

/**
 * Which models API callers may name (`AGENT_API_ALLOWED_MODELS`: models as runs name them, or `<endpoint>/*`); naming
 * another anywhere is 403 `model_not_allowed` before anything starts. Undefined allows every model.
 */
export function checkModelsAllowed(named: readonly string[], allowed: readonly string[] | undefined): void {
  if (allowed === undefined) return;
  const refused = [...new Set(named.filter((name) => !allowed.some((entry) => modelMatches(entry, name))))];
  if (refused.length === 0) return;
  throw new ApiError(
    'model_not_allowed',
    `This API does not let callers name the model ${refused.map((name) => `"${name}"`).join(', ')}; allowed: ${allowed.join(', ') || 'none'} (AGENT_API_ALLOWED_MODELS). Nothing was started.`,
  );
}

/**
 * The models a run input names, read leniently (the input is checked later): its `model`, its `modelFallbacks`, the
 * model that compacts its conversation (`compaction.model`) and the one that extracts long results
 * (`resultProcessing.extractModel`).
 */
export function modelsNamedBy(input: unknown): string[] {
  if (typeof input !== 'object' || input === null) return [];
  const { model, modelFallbacks, compaction, resultProcessing } = input as {
    model?: unknown;
    modelFallbacks?: unknown;
    compaction?: unknown;
    resultProcessing?: unknown;
  };
  const fallbacks = Array.isArray(modelFallbacks) ? modelFallbacks : [];
  const field = (value: unknown, key: string): unknown =>
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return [model, ...fallbacks, field(compaction, 'model'), field(resultProcessing, 'extractModel')].filter(
    (name): name is string => typeof name === 'string',
  );
}

/** Whether an allowed entry covers a named model: the same name, or `<endpoint>/*` and a model of that endpoint. */
function modelMatches(entry: string, name: string): boolean {
  if (entry === name) return true;
  if (!entry.endsWith('/*')) return false;
  const endpoint = entry.slice(0, -2);
  return name === endpoint || (name.startsWith(`${endpoint}/`) && name !== `${endpoint}/*`);
}
