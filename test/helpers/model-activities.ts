import { randomUUID } from 'node:crypto';
import type { Info } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import type { ScriptStep } from '../../src/scripted-model/script';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import type { AgentActivities } from '../../src/shared/activity-types';
import { createToolRegistry, type ToolRegistry } from '../../src/tools/tool-registry';

/**
 * What the activity tests that call the model share: a scripted
 * OpenAI-compatible server per test file, the activities bound to it, a
 * model name of its own per test, and Temporal's mock activity environment.
 */

/**
 * A scripted model server, started, and the activities bound to it with
 * `apiKey` and `defaultModel`; close the server in the file's `afterAll`.
 * @param registry the worker's tools. @default no tools
 */
export async function startModelActivities(
  model: { apiKey: string; defaultModel: string },
  registry: ToolRegistry = createToolRegistry([]),
): Promise<{ server: ScriptedModelServer; activities: AgentActivities }> {
  const server = await ScriptedModelServer.start();
  return { server, activities: createActivities({ registry, model: { baseURL: server.baseURL, ...model } }) };
}

/** A test file's scripted model server and activities, from {@link useModelActivities}. */
export interface ModelActivities {
  readonly server: ScriptedModelServer;
  readonly activities: AgentActivities;
  /** Queues `steps` under a model name of the test's own and returns the name. */
  script(steps: ScriptStep[]): string;
}

/**
 * {@link startModelActivities} before the file's tests (the server closed after them), with model
 * names `<prefix>-<n>-<random>`. Read `server` and `activities` inside tests and hooks only.
 */
export function useModelActivities(prefix: string, model: { apiKey: string; defaultModel: string }): ModelActivities {
  let started: { server: ScriptedModelServer; activities: AgentActivities } | undefined;
  const current = () => {
    if (started === undefined)
      throw new Error('the scripted model server is started in beforeAll: use it inside a test');
    return started;
  };
  beforeAll(async () => {
    started = await startModelActivities(model);
  });
  afterAll(async () => {
    await started?.server.close();
  });
  return {
    get server() {
      return current().server;
    },
    get activities() {
      return current().activities;
    },
    script: (steps) => scriptModel(current().server, prefix, steps),
  };
}

let modelCount = 0;

/** Queues `steps` on `server` under a model name of the test's own, `<prefix>-<n>-<random>`, and returns the name. */
export function scriptModel(server: ScriptedModelServer, prefix: string, steps: ScriptStep[]): string {
  const model = `${prefix}-${++modelCount}-${randomUUID().slice(0, 8)}`;
  server.script(model, steps);
  return model;
}

/**
 * A fresh mock activity environment, one per test: a cancelled environment stays cancelled.
 * Warnings of failed activities are muted.
 */
export function quietEnvironment(info?: Partial<Info>): MockActivityEnvironment {
  return new MockActivityEnvironment(info, { logger: new DefaultLogger('ERROR') });
}
