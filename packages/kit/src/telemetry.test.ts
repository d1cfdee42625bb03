import { DEFAULT_METRICS_PORT, metricsEndpoint } from './telemetry';

describe('the /metrics endpoint settings', () => {
  test('9464 on loopback unless told; any free port with 0; none with off', () => {
    expect(metricsEndpoint({})).toEqual({ host: '127.0.0.1', port: DEFAULT_METRICS_PORT });
    expect(metricsEndpoint({ METRICS_PORT: '9100', METRICS_HOST: '0.0.0.0' })).toEqual({ host: '0.0.0.0', port: 9100 });
    expect(metricsEndpoint({ METRICS_PORT: '0' })).toEqual({ host: '127.0.0.1', port: 0 });
    expect(metricsEndpoint({ METRICS_PORT: 'off' })).toBeUndefined();
  });

  test('anything else is refused at start, naming the variable', () => {
    for (const bad of ['65536', '-1', 'on', '80a', '1e3']) expect(() => metricsEndpoint({ METRICS_PORT: bad })).toThrow(/METRICS_PORT/);
  });
});

describe('sampling', () => {
  const { execFileSync } = require('node:child_process') as typeof import('node:child_process');
  /** A span started in a fresh process after startTelemetry, with this environment. */
  const spanIn = (env: NodeJS.ProcessEnv) => {
    const script = `
      const { startTelemetry, stopTelemetry } = require('@crm/kit/telemetry');
      startTelemetry('sampling-test');
      const api = require('@opentelemetry/api');
      const span = api.trace.getTracer('t').startSpan('work');
      const c = span.spanContext();
      process.stdout.write(JSON.stringify({ recording: span.isRecording(), valid: api.trace.isSpanContextValid(c), sampled: (c.traceFlags & 1) === 1 }));
      span.end();
      stopTelemetry(200).then(() => process.exit(0));`;
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
    const out = execFileSync(process.execPath, ['-e', script], { env: { ...clean, METRICS_PORT: 'off', ...env }, encoding: 'utf8', timeout: 30_000 });
    return JSON.parse(out) as { recording: boolean; valid: boolean; sampled: boolean };
  };

  test('with nowhere to send spans, none is recorded, and none is made up', () => {
    expect(spanIn({})).toEqual({ recording: false, valid: false, sampled: false });
  });

  test('with an exporter, the standard variables decide: recorded by default, none with a ratio of 0', () => {
    const exporter = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' };
    expect(spanIn(exporter)).toEqual({ recording: true, valid: true, sampled: true });
    expect(spanIn({ ...exporter, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' })).toEqual({ recording: false, valid: true, sampled: false });
  });
});
