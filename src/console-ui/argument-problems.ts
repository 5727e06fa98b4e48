import { Validator, type Schema } from '@cfworker/json-schema';

/** The problems of `text` as the arguments of a call: not JSON, not an object, or not valid against `schema`. */
export function argumentProblems(text: string, schema: Record<string, unknown> | undefined): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return [`Not JSON: ${(error as Error).message}`];
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return ['The arguments must be an object.'];
  if (schema === undefined) return [];
  const result = new Validator(schema as Schema, '2020-12', false).validate(value);
  return result.valid
    ? []
    : result.errors
        .filter((error) => error.keyword !== 'properties')
        .map((error) => `${error.instanceLocation}: ${error.error}`);
}
