import { EVENT_STREAM_HEADERS } from './event-stream-headers';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowExecutionStatusName,
} from '@temporalio/client';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { getAgentState } from '../client/agent-state';
import { getAgentTranscript } from '../client/agent-transcript';
import { startAgentRun } from '../client/start-agent-run';
import {
  answerElicitation,
  decideToolCall,
  getRunOutcome,
  listAgentRuns,
  sendUserMessage,
  stopAgentRun,
  terminateAgentRun,
  type RunOutcome,
  type RunSummary,
} from '../client/run-control';
import { NoWorkerError } from '../client/no-worker-error';
import type { ApprovalDecision, Decider } from '../shared/control';
import { API_ADMISSION_WAIT_MS, API_DEFAULTS, API_QUERY_DEADLINE_MS } from '../shared/defaults/api';
import { DEFAULT_AGENT_TOOLS } from '../shared/defaults/tools';
import { WORKFLOW_TYPE } from '../shared/defaults/names';
import { eventsQuery } from '../workflow-contract/definitions';
import { withModelDeltas } from '../client/model-stream-follower';
import { readClosedRun } from '../client/closed-run-reader';
import { closedRunEvents } from '../shared/closed-run';
import { RunSubscriptions } from './run-subscriptions';
import { isModelStreamEvent, type ModelStreamEvent } from '../shared/model-stream-events';
import { type EventPage, type RunEvent } from '../shared/run-events';
import { hasRunEnded } from '../temporal/run-ended';
import type { z } from 'zod';
import { toApiError } from './agent-client-errors';
import { errorBody, parseBody } from '../http/errors';
import { ApiError } from '../http/api-error';
import type { runOutcomeSchema, runRowSchema } from './response-schemas';
import {
  answerBody,
  approveBody,
  denyBody,
  eventsQueryString,
  lastEventIdHeader,
  listRunsQuery,
  messageBody,
  runPathParams,
  startRunBody,
  stopBody,
  terminateBody,
  transcriptQueryString,
} from './schemas';
import { withinDeadline } from './temporal-deadline';
import { registerForkRoute } from './fork-route';
import { checkModelsAllowed, modelsNamedBy } from './model-allowance';
import { checkToolsAllowed, toolsNamedBy } from './tool-allowance';
import { awaitRunAdmission } from './run-admission';
import { withDefaultTools } from './run-input-defaults';

export interface RunRouteDeps {
  client: Client;
  taskQueue: string;
  /** Comment lines that keep an idle event stream open through proxies. @default 15 s (`API_DEFAULTS.keepAliveMs`) */
  keepAliveMs?: number;
  /** The tools a request may name (`checkToolsAllowed`). @default every tool */
  allowedTools?: readonly string[];
  /** The models a request may name (`checkModelsAllowed`). @default every model */
  allowedModels?: readonly string[];
  /** The process's follows of runs, shared with the console's inbox. @default a new one */
  subscriptions?: RunSubscriptions;
  /** The tools of a run whose input names none (`AGENT_TOOLS`). @default {@link DEFAULT_AGENT_TOOLS} */
  defaultTools?: readonly string[];
  /** How long `POST /runs` waits for the worker to check the run's tools. @default {@link API_ADMISSION_WAIT_MS} */
  admissionWaitMs?: number;
}

/**
 * Runs without a conversation: start one and come back later, read its
 * state and result, follow its events as Server-Sent Events, decide its
 * pending calls, stop or terminate it, list runs by their search attributes.
 */
export function registerRunRoutes(app: FastifyInstance, deps: RunRouteDeps): void {
  const { client } = deps;
  const subscriptions = deps.subscriptions ?? new RunSubscriptions(client);
  /** Open event streams, ended when the server closes (they would otherwise hold it open). */
  const streams = new Set<AbortController>();
  app.addHook('preClose', async () => {
    for (const stream of streams) stream.abort();
  });

  app.post('/runs', async (request, reply) => {
    const withDefaults = withDefaultTools(request.body, deps.defaultTools ?? DEFAULT_AGENT_TOOLS);
    const body = parseBody(startRunBody, withDefaults);
    const raw = (withDefaults as { input: unknown }).input;
    checkToolsAllowed(toolsNamedBy(raw), deps.allowedTools);
    checkModelsAllowed(modelsNamedBy(raw), deps.allowedModels);
    try {
      const run = await withinDeadline(client, () =>
        startAgentRun(client, raw as never, {
          taskQueue: deps.taskQueue,
          ...(body.run_id ? { workflowId: body.run_id } : {}),
          ...(body.versioning === undefined ? {} : { versioning: body.versioning }),
        }),
      );
      // An unknown tool answers 400, as a chat turn does: the worker alone knows its tools, and says so at once.
      await awaitRunAdmission(client, run.workflowId, run.runId, deps.admissionWaitMs ?? API_ADMISSION_WAIT_MS);
      return reply
        .code(202)
        .header('location', `/runs/${encodeURIComponent(run.workflowId)}`)
        .send({
          run_id: run.workflowId,
          status_url: `/runs/${encodeURIComponent(run.workflowId)}`,
          events_url: `/runs/${encodeURIComponent(run.workflowId)}/events`,
        });
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) {
        throw new ApiError(
          'run_exists',
          `A run "${body.run_id}" exists already; choose another run_id, or leave it out for a fresh one.`,
        );
      }
      throw error;
    }
  });

  registerForkRoute(app, client, deps.allowedModels);

  app.get('/runs', async (request) => {
    const query = parseBody(listRunsQuery, request.query);
    const runs = await withinDeadline(client, () => listAgentRuns(client, query));
    return { runs: runs.map(runRow) };
  });

  app.get('/runs/:run_id', async (request) => {
    const runId = runIdOf(request);
    const description = await describeAgentRun(client, runId);
    const state = await withinDeadline(client, () => getAgentState(client, runId), API_QUERY_DEADLINE_MS);
    return { run_id: runId, temporal_status: description.status.name, state };
  });

  app.get('/runs/:run_id/result', async (request, reply) => {
    const runId = runIdOf(request);
    const description = await describeAgentRun(client, runId);
    if (!hasRunEnded(description.status.name)) return reply.code(202).send({ run_id: runId, outcome: 'running' });
    // The run has ended: its result is in its history, which the server answers alone.
    return { run_id: runId, ...outcomeBody(await withinDeadline(client, () => getRunOutcome(client, runId))) };
  });

  app.post('/runs/:run_id/approve', async (request) => {
    const runId = runIdOf(request);
    const body = parseBody(approveBody, request.body);
    await describeAgentRun(client, runId);
    return auditDecision(
      request,
      runId,
      await decideToolCall(client, runId, {
        callId: body.call_id,
        decision: 'approve',
        ...(body.arguments ? { arguments: body.arguments } : {}),
        by: deciderOf(request),
      }),
    );
  });

  app.post('/runs/:run_id/deny', async (request) => {
    const runId = runIdOf(request);
    const body = parseBody(denyBody, request.body);
    await describeAgentRun(client, runId);
    return auditDecision(
      request,
      runId,
      await decideToolCall(client, runId, {
        callId: body.call_id,
        decision: 'deny',
        ...(body.reason === undefined ? {} : { reason: body.reason }),
        by: deciderOf(request),
      }),
    );
  });

  app.post('/runs/:run_id/answer', async (request) => {
    const runId = runIdOf(request);
    const body = parseBody(answerBody, request.body);
    await describeAgentRun(client, runId);
    const answered = await answerElicitation(client, runId, {
      ...(body.elicitation_id === undefined ? {} : { elicitationId: body.elicitation_id }),
      action: body.action,
      ...(body.content === undefined ? {} : { content: body.content }),
      by: deciderOf(request),
    });
    request.log.info(
      { audit: 'elicitation-answer', runId, ...answered, by: deciderOf(request).name ?? '(unnamed)' },
      'answered an MCP question',
    );
    return answered;
  });

  app.post('/runs/:run_id/stop', async (request, reply) => {
    const runId = runIdOf(request);
    const body = parseBody(stopBody, request.body ?? {});
    await refuseEndedRun(client, runId);
    await withinDeadline(client, () => stopAgentRun(client, runId, body.reason));
    return reply.code(202).send({ run_id: runId, stop_requested: true });
  });

  app.post('/runs/:run_id/terminate', async (request, reply) => {
    const runId = runIdOf(request);
    const body = parseBody(terminateBody, request.body ?? {});
    await refuseEndedRun(client, runId);
    await withinDeadline(client, () => terminateAgentRun(client, runId, body.reason));
    return reply.code(202).send({ run_id: runId, terminating: true });
  });

  app.post('/runs/:run_id/messages', async (request, reply) => {
    const runId = runIdOf(request);
    const body = parseBody(messageBody, request.body);
    const description = await describeAgentRun(client, runId);
    if (hasRunEnded(description.status.name)) {
      throw new ApiError(
        'run_ended',
        `Run "${runId}" has already ended (${description.status.name.toLowerCase()}); it takes no messages.`,
      );
    }
    await withinDeadline(client, () => sendUserMessage(client, runId, body.content));
    return reply.code(202).send({ run_id: runId, delivered: true });
  });

  app.get('/runs/:run_id/messages', async (request) => {
    const runId = runIdOf(request);
    const query = parseBody(transcriptQueryString, request.query);
    await describeAgentRun(client, runId);
    const page = await withinDeadline(client, () => getAgentTranscript(client, runId, query));
    const next = page.from + page.messages.length;
    return {
      run_id: runId,
      total: page.total,
      from: page.from,
      messages: page.messages,
      ...(next < page.total ? { next_from: next } : {}),
    };
  });

  app.get('/runs/:run_id/events', async (request, reply) => {
    const runId = runIdOf(request);
    const query = parseBody(eventsQueryString, request.query);
    // A reconnecting EventSource repeats the URL (with its ?after=) and adds Last-Event-ID: the later one wins.
    const after = Math.max(query.after ?? 0, lastEventId(request));
    const description = await describeAgentRun(client, runId);
    if (after > 0 && hasRunEnded(description.status.name)) {
      // A follower that has read to the end of an ended run: 204 tells an EventSource to stop reconnecting.
      const rest = await readEventsAfter(client, runId, description.status.name, after);
      if (rest.events.length === 0) return reply.code(204).send();
    }

    // From here on the answer is a stream: errors become an `error` event, not a status code.
    reply.hijack();
    const stream = reply.raw;
    stream.writeHead(200, EVENT_STREAM_HEADERS);
    const closed = new AbortController();
    streams.add(closed);
    stream.on('close', () => closed.abort());
    const keepAlive = setInterval(() => stream.write(': keep-alive\n\n'), deps.keepAliveMs ?? API_DEFAULTS.keepAliveMs);
    try {
      // Not an event of the run (no id): the stream skips ahead, and says by how much.
      const onMissed = (missed: number) =>
        stream.write(`event: events-missed\ndata: ${JSON.stringify({ missed })}\n\n`);
      // Not an event of the run either: the run waits for a worker, and its follower is told so at once.
      const onNoWorker = (taskQueue: string) =>
        stream.write(
          `event: no-worker\ndata: ${JSON.stringify(errorBody(toApiError(new NoWorkerError(runId, taskQueue), request.id)).error)}\n\n`,
        );
      // Every stream on this run reads one follow of it (one query per read, whatever the number of streams).
      for await (const event of withModelDeltas(
        client,
        runId,
        (signal) => subscriptions.follow(runId, after, signal, onMissed, onNoWorker),
        closed.signal,
        after > 0,
      )) {
        stream.write(eventFrame(event));
        // Once per follow, like the event: the operator's side of it (every API must reach every worker's stream port).
        if (event.type === 'model-stream-unreachable')
          request.log.warn(
            { runId, reason: event.reason },
            "This API process cannot read a worker's streamed model deltas: its followers see each answer once complete. Every API process must reach every worker's stream port (AGENT_STREAM_HOST, AGENT_STREAM_PORT, AGENT_STREAM_PUBLIC_URL).",
          );
      }
      if (!closed.signal.aborted) {
        stream.write(
          `event: end\ndata: ${JSON.stringify({ run_id: runId, ...outcomeBody(await getRunOutcome(client, runId)) })}\n\n`,
        );
      }
    } catch (error) {
      const answer = toApiError(error, request.id);
      if (answer.statusCode >= 500) request.log.error({ err: error }, answer.message);
      if (!closed.signal.aborted) stream.write(`event: error\ndata: ${JSON.stringify(errorBody(answer).error)}\n\n`);
    } finally {
      clearInterval(keepAlive);
      streams.delete(closed);
      stream.end();
    }
  });
}

/**
 * The run's Temporal description; 404 when there is no run of that id, or it is not an agent run.
 * Bounded by the deadline: every route on a run asks this first, so a Temporal that is down is a quick 503
 * before any call that waits for a worker (a query, an update).
 */
async function describeAgentRun(client: Client, runId: string): Promise<WorkflowExecutionDescription> {
  let description: WorkflowExecutionDescription;
  try {
    description = await withinDeadline(client, () => client.workflow.getHandle(runId).describe());
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new ApiError('run_not_found', `No run "${runId}" exists.`);
    throw error;
  }
  if (description.type !== WORKFLOW_TYPE) {
    throw new ApiError('run_not_found', `"${runId}" is a ${description.type}, not an agent run.`);
  }
  return description;
}

/** A 409 `run_ended` saying how the run ended (its own status, which a graceful ending leaves `completed` in Temporal). */
async function refuseEndedRun(client: Client, runId: string): Promise<void> {
  const description = await describeAgentRun(client, runId);
  if (!hasRunEnded(description.status.name)) return;
  const ended = await withinDeadline(client, () => readClosedRun(client, runId));
  const how = ended?.state.status ?? description.status.name.toLowerCase();
  throw new ApiError('run_ended', `Run "${runId}" has already ended (${how}).`);
}

/** The ended run's first event after `after`: from the record its close carries, else the query. */
async function readEventsAfter(
  client: Client,
  runId: string,
  status: WorkflowExecutionStatusName,
  after: number,
): Promise<EventPage> {
  const closed = hasRunEnded(status) ? await readClosedRun(client, runId) : undefined;
  if (closed !== undefined) return closedRunEvents(closed.record, after, 1);
  return client.workflow.getHandle(runId).query(eventsQuery, { after, limit: 1 });
}

/**
 * A run's event as a Server-Sent Event: its `seq` the id (what `Last-Event-ID` resumes after), its `type` the event
 * name. A model delta has no id: it is not part of the log, and a reconnecting client resumes after the last event.
 */
function eventFrame(event: RunEvent | ModelStreamEvent): string {
  if (isModelStreamEvent(event)) return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Who decides over HTTP: the request's principal (none when authentication is off), whatever the body says. */
function deciderOf(request: FastifyRequest): Decider {
  return request.principal === undefined ? { via: 'api' } : { name: request.principal.name, via: 'api' };
}

/** The API's audit line of a decision it delivered: one per decision, naming the run, the call and who. */
function auditDecision(request: FastifyRequest, runId: string, recorded: ApprovalDecision): ApprovalDecision {
  request.log.info(
    {
      audit: 'approval-decision',
      runId,
      callId: recorded.callId,
      toolName: recorded.toolName,
      decision: recorded.decision,
      decidedBy: recorded.by?.name ?? '(unnamed)',
      decidedVia: recorded.by?.via ?? recorded.via,
    },
    'Approval decision',
  );
  return recorded;
}

function runIdOf(request: FastifyRequest): string {
  const parsed = runPathParams.safeParse(request.params);
  if (!parsed.success) throw new ApiError('invalid_run_id', 'run_id: give the id of a run.');
  return parsed.data.run_id;
}

function lastEventId(request: FastifyRequest): number {
  const header = request.headers['last-event-id'];
  if (header === undefined || header === '') return 0;
  const seq = lastEventIdHeader.safeParse(header);
  if (!seq.success)
    throw new ApiError('invalid_header', 'Last-Event-ID: expected the seq of an event (a whole number).');
  return seq.data;
}

/** A run's ending, as the API reports it. */
function outcomeBody(outcome: RunOutcome): z.input<typeof runOutcomeSchema> {
  switch (outcome.kind) {
    case 'completed':
      return { outcome: 'completed', result: outcome.result };
    case 'terminated':
      return {
        outcome: 'terminated',
        reason: outcome.reason,
        ...(outcome.result === undefined ? {} : { result: outcome.result }),
      };
    case 'failed':
      return { outcome: 'failed', error: { type: outcome.type, message: outcome.message } };
  }
}

function runRow(run: RunSummary): z.input<typeof runRowSchema> {
  return {
    run_id: run.workflowId,
    temporal_status: run.temporalStatus,
    status: run.status ?? null,
    iterations: run.iterations ?? null,
    total_tokens: run.totalTokens ?? null,
    cost_usd: run.costUsd ?? null,
    pending_approvals: run.pendingApprovals ?? null,
    termination_reason: run.terminationReason ?? null,
    start_time: run.startTime,
    close_time: run.closeTime ?? null,
  };
}
