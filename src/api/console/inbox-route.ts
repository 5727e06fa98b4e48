import type { FastifyInstance } from 'fastify';
import { API_DEFAULTS } from '../../shared/defaults/api';
import { EVENT_STREAM_HEADERS } from '../event-stream-headers';
import type { ApprovalInbox } from './approval-inbox';

/**
 * `GET /console/api/approvals`: the approvals inbox as Server-Sent Events, one `inbox` event with every waiting call
 * now and another at each change, so a call decided anywhere leaves every open console at once.
 */
export function registerInboxRoute(app: FastifyInstance, inbox: ApprovalInbox, keepAliveMs?: number): void {
  const streams = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const close of streams) close();
  });
  app.get('/console/api/approvals', async (request, reply) => {
    reply.hijack();
    const stream = reply.raw;
    stream.writeHead(200, EVENT_STREAM_HEADERS);
    const keepAlive = setInterval(() => stream.write(': keep-alive\n\n'), keepAliveMs ?? API_DEFAULTS.keepAliveMs);
    const stop = inbox.listen((approvals) => stream.write(`event: inbox\ndata: ${JSON.stringify({ approvals })}\n\n`));
    const close = () => {
      clearInterval(keepAlive);
      stop();
      streams.delete(close);
      stream.end();
    };
    streams.add(close);
    request.raw.on('close', close);
  });
}
