import { ConfigError } from '../../src/config';
import { loadMetricsConfig, loadTracingConfig } from '../../src/config/tracing';
import { tracingOn } from '../../src/tracing/process-tracing';
import { AgentRunnerPlugin } from '../../src/worker/plugin';

/**
 * Tracing is configured by the standard OTEL_* variables and costs nothing when they are unset: no interceptor,
 * no sink, no OpenTelemetry SDK module loaded. (With them set, test/integration/tracing.test.ts follows a run's
 * trace into a real Jaeger.)
 */
describe('tracing configuration', () => {
  test('off unless an OTLP endpoint or OTEL_TRACES_EXPORTER=otlp is set; OTEL_TRACES_EXPORTER=none wins', () => {
    expect(loadTracingConfig('svc', {})).toBeUndefined();
    expect(loadTracingConfig('svc', { OTEL_SERVICE_NAME: 'named' })).toBeUndefined();
    expect(loadTracingConfig('svc', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' })).toEqual({
      serviceName: 'svc',
      captureContent: false,
    });
    expect(
      loadTracingConfig('svc', {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces',
        OTEL_SERVICE_NAME: 'named',
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      }),
    ).toEqual({ serviceName: 'named', captureContent: true });
    expect(loadTracingConfig('svc', { OTEL_TRACES_EXPORTER: 'otlp' })?.serviceName).toBe('svc');
    expect(
      loadTracingConfig('svc', { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' }),
    ).toBeUndefined();
  });

  test('bad values are named', () => {
    expect(() => loadTracingConfig('svc', { OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT="localhost:4318": expected an http\(s\) URL/,
    );
    expect(() => loadTracingConfig('svc', { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'yes' })).toThrow(
      ConfigError,
    );
  });

  test('SDK metrics: Prometheus or OTLP, not both', () => {
    expect(loadMetricsConfig({})).toBeUndefined();
    expect(loadMetricsConfig({ AGENT_METRICS_PROMETHEUS: '127.0.0.1:9464' })).toEqual({
      prometheus: { bindAddress: '127.0.0.1:9464' },
    });
    expect(loadMetricsConfig({ AGENT_METRICS_OTLP_URL: 'http://localhost:4317' })).toEqual({
      otel: { url: 'http://localhost:4317' },
    });
    expect(() =>
      loadMetricsConfig({ AGENT_METRICS_PROMETHEUS: '127.0.0.1:9464', AGENT_METRICS_OTLP_URL: 'http://x:4317' }),
    ).toThrow('Set AGENT_METRICS_PROMETHEUS or AGENT_METRICS_OTLP_URL, not both.');
    expect(() => loadMetricsConfig({ AGENT_METRICS_PROMETHEUS: '9464' })).toThrow(/expected host:port/);
  });

  test('tracing off: the plugin adds no interceptor and no span sink, and no OpenTelemetry SDK module is loaded', () => {
    for (const name of Object.keys(process.env)) if (name.startsWith('OTEL_')) delete process.env[name];
    const plugin = new AgentRunnerPlugin({
      tools: [],
      model: { apiKey: 'unused', defaultModel: 'unused' },
      streamListener: false,
    });
    expect(plugin.tracingOn).toBe(false);
    expect(tracingOn()).toBe(false);
    const options = plugin.configureWorker({ taskQueue: 'q' });
    expect(options.interceptors?.workflowModules ?? []).toEqual([]);
    expect(options.interceptors?.activity ?? []).toEqual([]);
    expect(Object.keys(options.sinks ?? {})).toEqual(['agentRunnerModelRequests']);
    const replay = plugin.configureReplayWorker({});
    expect(replay.interceptors?.workflowModules ?? []).toEqual([]);
    expect(Object.keys(replay.sinks ?? {})).toEqual(['agentRunnerModelRequests']);
    const loaded = Object.keys(require.cache).filter((file) =>
      /@opentelemetry[\\/](sdk-trace|exporter|resources)|interceptors-opentelemetry/.test(file),
    );
    expect(loaded).toEqual([]);
  });
});
