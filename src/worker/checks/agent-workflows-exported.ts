import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { BundleOptions } from '@temporalio/worker';

/** The workflows a worker must register for agent runs (and conversations) to find it. */
const AGENT_WORKFLOW_NAMES = ['agentWorkflow', 'conversationWorkflow'] as const;

type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];
/* webpack's own types, reached through the bundler's (webpack is Temporal's dependency, not ours). */
type WebpackPluginFunction = Extract<NonNullable<WebpackConfig['plugins']>[number], (...args: never[]) => unknown>;
type WebpackCompiler = Parameters<WebpackPluginFunction>[0];
type WebpackPlugin = { apply(compiler: WebpackCompiler): void };

/**
 * Fails `Worker.create`, saying what to add, when the bundle from `workflowsPath` holds none of the agent's workflow
 * modules (its runs would wait forever). It checks the bundle's modules, since webpack cannot read CommonJS exports;
 * a prebuilt `workflowBundle` is not checked.
 */
export function checkAgentWorkflowsExported(
  workflowsPath: string,
  webpackConfigHook: BundleOptions['webpackConfigHook'],
): NonNullable<BundleOptions['webpackConfigHook']> {
  return (config: WebpackConfig) => {
    const configured = webpackConfigHook === undefined ? config : webpackConfigHook(config);
    const check: WebpackPlugin = { apply: (compiler) => checkBundle(compiler, workflowsPath) };
    return { ...configured, plugins: [...(configured.plugins ?? []), check] };
  };
}

/** The message for a workflows module that lacks `missing`. */
function missingAgentWorkflowsMessage(workflowsPath: string, missing: readonly string[]): string {
  return (
    `AgentRunnerPlugin: the worker's workflows module ${workflowsPath} does not export ${missing.join(' or ')}, so agent runs ` +
    "on this worker's task queue would never start. Add `export * from 'agent-runner/workflow';` to that module " +
    '(a worker bundles one workflows module, and the plugin keeps yours).'
  );
}

/** The agent's workflow modules, as source (run from `src/`) or built (`dist/`), by workflow name. */
const WORKFLOWS_DIRECTORY = path.dirname(require.resolve('../../workflows'));
const AGENT_WORKFLOW_FILES: Record<(typeof AGENT_WORKFLOW_NAMES)[number], string[]> = {
  agentWorkflow: ['agent/agent-workflow.ts', 'agent/agent-workflow.js'].map((file) =>
    path.join(WORKFLOWS_DIRECTORY, file),
  ),
  conversationWorkflow: ['conversation/conversation-workflow.ts', 'conversation/conversation-workflow.js'].map((file) =>
    path.join(WORKFLOWS_DIRECTORY, file),
  ),
};

function checkBundle(compiler: WebpackCompiler, workflowsPath: string): void {
  // After the compilation and before anything is written: an error here reaches Worker.create as it is.
  compiler.hooks.afterCompile.tapPromise('agent-runner:agent-workflows-exported', async (compilation) => {
    const resources = new Set<string>();
    for (const module of compilation.modules) {
      const resource = (module as { resource?: string }).resource;
      if (resource !== undefined) resources.add(resource);
    }
    // Only the bundle of the worker's own module is judged (a bundle of something else has no business here).
    if (
      !resources.has(path.resolve(workflowsPath)) &&
      !candidateFiles(workflowsPath).some((file) => resources.has(file))
    )
      return;
    const missing = AGENT_WORKFLOW_NAMES.filter(
      (name) => !AGENT_WORKFLOW_FILES[name].some((file) => resources.has(file)),
    );
    if (missing.length > 0) throw new Error(missingAgentWorkflowsMessage(workflowsPath, missing));
  });
}

/** The file Temporal's bundler loads for `workflowsPath`: the file itself, or a directory's index. */
function candidateFiles(workflowsPath: string): string[] {
  const resolved = path.resolve(workflowsPath);
  if (existsSync(resolved) && statSync(resolved).isDirectory())
    return ['index.ts', 'index.js'].map((name) => path.join(resolved, name));
  return [resolved];
}
