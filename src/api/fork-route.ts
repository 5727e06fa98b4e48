import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { forkRun } from '../client/fork-run';
import { parseBody } from '../http/errors';
import { ApiError } from '../http/api-error';
import { checkModelsAllowed, modelsNamedBy } from './model-allowance';
import { forkRunBody, runPathParams } from './schemas';
import { allows, FORK_READ_SCOPE } from './scopes';
import { withinDeadline } from './temporal-deadline';
import { API_FORK_DEADLINE_MS } from '../shared/defaults/api';

/**
 * `POST /runs/:run_id/fork`: a new run from the run's conversation as it stood when an iteration began, edited
 * (`forkRun`). It starts a run (`runs:write`, the route's scope) from what it reads of the source (`runs:read`).
 * Every refusal is answered before anything starts; a model the edit names must be allowed (`AGENT_API_ALLOWED_MODELS`).
 */
export function registerForkRoute(app: FastifyInstance, client: Client, allowedModels?: readonly string[]): void {
  app.post('/runs/:run_id/fork', async (request, reply) => {
    const params = runPathParams.safeParse(request.params);
    if (!params.success) throw new ApiError('invalid_run_id', 'run_id: give the id of a run.');
    const sourceId = params.data.run_id;
    const body = parseBody(forkRunBody, request.body);
    // An edit names models as a run's input does; what the source already ran with is the operator's to have allowed.
    checkModelsAllowed(modelsNamedBy(body.input ?? {}), allowedModels);
    // Checked once the request is valid: a request that could not be answered anyway says what is wrong with it.
    const principal = request.principal;
    if (principal !== undefined && !allows(principal.scopes, FORK_READ_SCOPE))
      throw new ApiError(
        'forbidden',
        `POST /runs/:run_id/fork reads the source run too: it needs the scope "${FORK_READ_SCOPE}" besides "runs:write"; principal "${principal.name}" lacks it.`,
      );
    try {
      const fork = await withinDeadline(
        client,
        () =>
          forkRun(client, sourceId, {
            atIteration: body.at_iteration,
            edit: {
              ...(body.message === undefined ? {} : { message: body.message }),
              ...(body.tool_results === undefined ? {} : { toolResults: body.tool_results }),
              ...(body.input === undefined ? {} : { input: body.input }),
            },
            ...(body.run_id === undefined ? {} : { workflowId: body.run_id }),
          }),
        API_FORK_DEADLINE_MS,
      );
      const url = `/runs/${encodeURIComponent(fork.workflowId)}`;
      return reply
        .code(202)
        .header('location', url)
        .send({
          run_id: fork.workflowId,
          status_url: url,
          events_url: `${url}/events`,
          forked_from: { run_id: sourceId, iteration: body.at_iteration },
        });
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError)
        throw new ApiError(
          'run_exists',
          `A run "${body.run_id}" exists already; choose another run_id, or leave it out.`,
        );
      throw error;
    }
  });
}
