import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * The custom search attributes of agent runs, kept current by the workflow so
 * runs can be found in the web UI and with
 * `temporal workflow list --query "AgentStatus='waiting_for_approval'"`.
 */
export const AgentStatusKey = defineSearchAttributeKey('AgentStatus', SearchAttributeType.KEYWORD);
export const AgentIterationsKey = defineSearchAttributeKey('AgentIterations', SearchAttributeType.INT);
export const AgentTotalTokensKey = defineSearchAttributeKey('AgentTotalTokens', SearchAttributeType.INT);
/** What the run has cost so far in US dollars, where the worker knows its model's price (`model.prices`); unset before. */
export const AgentCostUsdKey = defineSearchAttributeKey('AgentCostUsd', SearchAttributeType.DOUBLE);
export const AgentPendingApprovalsKey = defineSearchAttributeKey('AgentPendingApprovals', SearchAttributeType.INT);
export const AgentTerminationReasonKey = defineSearchAttributeKey(
  'AgentTerminationReason',
  SearchAttributeType.KEYWORD,
);
/** Set at a fork's start (`forkRun`) to its source run's id, so `AgentForkedFrom='<run id>'` lists the forks of a run. */
export const AgentForkedFromKey = defineSearchAttributeKey('AgentForkedFrom', SearchAttributeType.KEYWORD);

/** Attributes a client sets at a run's start and no run upserts: a worker runs on a namespace without them. */
export const CLIENT_SET_SEARCH_ATTRIBUTES: readonly string[] = [AgentForkedFromKey.name];

/** Every key, for the SDK's own dev server. */
export const AGENT_SEARCH_ATTRIBUTE_KEYS = [
  AgentStatusKey,
  AgentIterationsKey,
  AgentTotalTokensKey,
  AgentCostUsdKey,
  AgentPendingApprovalsKey,
  AgentTerminationReasonKey,
  AgentForkedFromKey,
] as const;

/** Name and CLI type of each, for registering them on a server. */
export const AGENT_SEARCH_ATTRIBUTES = {
  AgentStatus: 'Keyword',
  AgentIterations: 'Int',
  AgentTotalTokens: 'Int',
  AgentCostUsd: 'Double',
  AgentPendingApprovals: 'Int',
  AgentTerminationReason: 'Keyword',
  AgentForkedFrom: 'Keyword',
} as const;
