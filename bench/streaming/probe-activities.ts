import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { CompletionAssembler } from '../../src/activities/completion-stream';
import { sseData } from '../../src/activities/sse-data';
import type { ProbeActivities, ProbeHeartbeat } from './probe-types';

/** What a probe's activity sent, for the bench to count. */
export interface ProbeCounters {
  heartbeats: number;
  signals: number;
}

/**
 * The probe's model call: the scripted model's stream read as the runner
 * reads it, each text delta published over the probe's transport.
 */
export function createProbeActivities(client: Client, baseURL: string, counters: ProbeCounters): ProbeActivities {
  return {
    async probeModelCall(input) {
      const context = Context.current();
      const response = await fetch(`${baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: input.model, messages: [{ role: 'user', content: 'probe' }], stream: true }),
      });
      if (response.body === null) throw new Error('the scripted model sent no body');
      const assembler = new CompletionAssembler();
      const texts: string[] = [];
      let batch: string[] = [];
      let flushing: Promise<void> = Promise.resolve();
      const handle = client.workflow.getHandle(context.info.workflowExecution?.workflowId ?? '');
      const flush = () => {
        if (batch.length === 0) return;
        const sending = batch;
        batch = [];
        counters.signals += 1;
        flushing = flushing.then(() => handle.signal('probeDelta', { texts: sending }));
      };
      const timer = input.transport === 'signal' ? setInterval(flush, input.batchMs) : undefined;
      try {
        for await (const data of sseData(response.body)) {
          if (data.trim() === '[DONE]') break;
          const reading = assembler.add(data);
          if (!reading.ok) throw new Error(reading.problem);
          for (const delta of reading.deltas) {
            if (delta.kind !== 'text') continue;
            texts.push(delta.text);
            if (input.transport === 'heartbeat') {
              counters.heartbeats += 1;
              context.heartbeat({ texts: [...texts] } satisfies ProbeHeartbeat);
            } else {
              batch.push(delta.text);
            }
          }
        }
      } finally {
        clearInterval(timer);
      }
      flush();
      await flushing;
      return texts.length;
    },
  };
}
