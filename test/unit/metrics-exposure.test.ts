import { metricsExposureWarning } from '../../src/config/metrics-exposure';
import { loadMetricsConfig } from '../../src/config/tracing';

/** A worker's Prometheus endpoint has no authentication: bound beyond loopback, the worker says so at start. */

const warningFor = (bindAddress: string) =>
  metricsExposureWarning(loadMetricsConfig({ AGENT_METRICS_PROMETHEUS: bindAddress }));

describe('the metrics endpoint warning', () => {
  test.each(['127.0.0.1:9464', '127.3.2.1:9464', '[::1]:9464', 'localhost:9464', 'LOCALHOST:9464'])(
    '%s: this machine only, no warning',
    (bindAddress) => {
      expect(warningFor(bindAddress)).toBeUndefined();
    },
  );

  test.each(['0.0.0.0:9464', '[::]:9464', '10.1.2.3:9464', 'metrics.internal:9464', '127.0.0.1.example.com:9464'])(
    '%s: beyond this machine, a warning that names the address and what to do',
    (bindAddress) => {
      expect(warningFor(bindAddress)).toBe(
        `agent-runner: AGENT_METRICS_PROMETHEUS=${bindAddress} serves the worker's metrics beyond this machine, ` +
          'without authentication (namespaces, task queues, rates): bind it to 127.0.0.1, or keep its port on a ' +
          'private network.',
      );
    },
  );

  test('no Prometheus endpoint (none, or OTLP pushed out): no warning', () => {
    expect(metricsExposureWarning(undefined)).toBeUndefined();
    expect(
      metricsExposureWarning(loadMetricsConfig({ AGENT_METRICS_OTLP_URL: 'http://0.0.0.0:4317' })),
    ).toBeUndefined();
  });
});
