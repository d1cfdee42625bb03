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

describe('/metrics of a process', () => {
  const { INSTRUMENTS, RUNTIME_INSTRUMENTS, prometheusName } = require('./metrics') as typeof import('./metrics');
  const { scrapeFreshProcess } = require('./testing/metrics-scrape') as typeof import('./testing/metrics-scrape');
  let text = '';
  beforeAll(() => {
    text = scrapeFreshProcess();
  }, 60_000);

  const families = () => new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => [name!, type!]));

  test('every instrument of the catalogue is served under the name prometheusName gives it, with its type', () => {
    const served = families();
    const catalogue = { ...INSTRUMENTS, ...RUNTIME_INSTRUMENTS };
    const wrong = Object.entries(catalogue)
      .map(([name, spec]) => [prometheusName(name as keyof typeof catalogue), spec.kind] as const)
      .filter(([name, kind]) => served.get(name) !== kind);
    expect(wrong).toEqual([]);
  });

  test('the Node.js runtime and the process are there: event-loop delay, heap, GC, CPU and memory', () => {
    expect(text).toMatch(/^nodejs_eventloop_delay_p99_seconds\{[^}]*\} \d/m);
    expect(text).toMatch(/^v8js_memory_heap_used_bytes\{v8js_heap_space_name="old_space",[^}]*\} [1-9]/m);
    expect(text).toMatch(/^v8js_gc_duration_seconds_count\{v8js_gc_type="major",[^}]*\} [1-9]/m);
    expect(text).toMatch(/^process_cpu_time_seconds_total\{cpu_mode="user",[^}]*\} \d/m);
    expect(text).toMatch(/^process_memory_usage_bytes\{[^}]*\} [1-9]\d{6,}/m);
  });

  test('a family with a unit says it in its name: seconds end in _seconds, bytes in _bytes', () => {
    const units = [...text.matchAll(/^# UNIT (\S+) (\S+)$/gm)].map(([, name, unit]) => [name!, unit!] as const);
    expect(units.length).toBeGreaterThan(10);
    expect(units.filter(([name, unit]) => !new RegExp(`_${unit}(_total)?$`).test(name))).toEqual([]);
    // Nothing is left in OpenTelemetry's notation, nor a duration or an age served without a unit.
    expect(units.filter(([, unit]) => /^(s|ms|By|1)$|\{/.test(unit))).toEqual([]);
    expect([...families().keys()].filter((name) => /(duration|_age|delay|_time)(_|$)/.test(name) && !/_seconds(_total)?$/.test(name))).toEqual([]);
  });
});
