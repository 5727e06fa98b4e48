import { checkModelsAllowed, modelsNamedBy } from '../../src/api/model-allowance';

/** Which models API callers may name: exact names, and `<endpoint>/*` for an endpoint's every model. */

test('exact names and endpoint wildcards pass; anything else is refused, naming it', () => {
  const allowed = ['gpt-4o-mini', 'local/*'];
  expect(() => checkModelsAllowed(['gpt-4o-mini', 'local', 'local/qwen'], allowed)).not.toThrow();
  expect(() => checkModelsAllowed(['gpt-4o'], allowed)).toThrow(/"gpt-4o"; allowed: gpt-4o-mini, local\/\*/);
  expect(() => checkModelsAllowed(['localhost/qwen'], allowed)).toThrow(/"localhost\/qwen"/);
  expect(() => checkModelsAllowed(['anything'], undefined)).not.toThrow();
  expect(() => checkModelsAllowed([], [])).not.toThrow();
});

test("a run input's model and fallbacks are what it names", () => {
  expect(modelsNamedBy({ model: 'a', modelFallbacks: ['b', 7, 'c'] })).toEqual(['a', 'b', 'c']);
  expect(modelsNamedBy({ message: 'hi' })).toEqual([]);
  expect(modelsNamedBy(null)).toEqual([]);
});
