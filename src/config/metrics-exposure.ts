import type { MetricsConfig } from './tracing';

/** 127.0.0.0/8, ::1 and localhost: what only this machine reaches. */
const LOOPBACK_HOST = /^(127(\.\d{1,3}){3}|\[::1\]|localhost)$/i;

/**
 * What a worker says at start when its Prometheus endpoint listens beyond this machine (`0.0.0.0`, `[::]`, a network
 * address or a host name); undefined when it listens on loopback or there is none. The endpoint has no authentication.
 */
export function metricsExposureWarning(metrics: MetricsConfig | undefined): string | undefined {
  if (metrics === undefined || !('prometheus' in metrics)) return undefined;
  const { bindAddress } = metrics.prometheus;
  const host = bindAddress.slice(0, bindAddress.lastIndexOf(':'));
  if (LOOPBACK_HOST.test(host)) return undefined;
  return (
    `agent-runner: AGENT_METRICS_PROMETHEUS=${bindAddress} serves the worker's metrics beyond this machine, without ` +
    'authentication (namespaces, task queues, rates): bind it to 127.0.0.1, or keep its port on a private network.'
  );
}
