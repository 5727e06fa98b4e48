import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import type { ApiAuth } from '../auth';
import type { BrowserSessions } from '../../http/browser-sessions';
import type { RunSubscriptions } from '../run-subscriptions';
import { ApprovalInbox } from './approval-inbox';
import type { ConsoleSession } from './console-session';
import { registerInboxRoute } from './inbox-route';
import { registerSignInRoutes } from './sign-in-routes';
import { registerStaticRoutes } from './static-routes';

/** The console's settings (`buildApiServer({ console })`). */
export interface ConsoleOptions {
  /** The Temporal web UI, for the link on each run. @default http://localhost:8233 (`temporal server start-dev`'s) */
  temporalUiUrl?: string;
  /** Where the built page is. @default dist/console of the package (`CONSOLE_BUNDLE_DIR`) */
  bundleDir?: string;
  /** Failed sign-ins per client address and window. @default 5 a minute (`CONSOLE_DEFAULTS.loginFailures`) */
  loginLimit?: { failures: number; windowMs: number };
  /** How often the inbox asks visibility for runs that wait. @default 1 s (`CONSOLE_DEFAULTS.inboxPollMs`) */
  inboxPollMs?: number;
}

/** The console at `/console/`: its page, its sign-in and its approvals inbox, on the API's own principals. */
export function registerConsole(
  app: FastifyInstance,
  deps: {
    client: Client;
    auth: ApiAuth;
    sessions: BrowserSessions<ConsoleSession>;
    subscriptions: RunSubscriptions;
    options: ConsoleOptions;
    keepAliveMs?: number;
  },
): void {
  const { options } = deps;
  registerStaticRoutes(app, options.bundleDir);
  registerSignInRoutes(app, {
    auth: deps.auth,
    sessions: deps.sessions,
    namespace: deps.client.options.namespace,
    temporalUiUrl: options.temporalUiUrl ?? 'http://localhost:8233',
    ...(options.loginLimit === undefined ? {} : { loginLimit: options.loginLimit }),
  });
  const inbox = new ApprovalInbox({
    client: deps.client,
    subscriptions: deps.subscriptions,
    ...(options.inboxPollMs === undefined ? {} : { pollMs: options.inboxPollMs }),
  });
  app.addHook('onClose', async () => inbox.stopAll());
  registerInboxRoute(app, inbox, deps.keepAliveMs);
}
