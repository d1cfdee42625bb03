import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { prometheusMetricName, prometheusUnit, withPrometheusNames } from './prometheus-names';

describe('Prometheus names from OpenTelemetry names and units', () => {
  test('the unit in words ends the name: seconds, bytes, a gauge\'s ratio; a count adds nothing', () => {
    expect(prometheusMetricName('http.server.request.duration', 's', 'histogram')).toBe('http_server_request_duration_seconds');
    expect(prometheusMetricName('crm.outbox.oldest_age', 's', 'gauge')).toBe('crm_outbox_oldest_age_seconds');
    expect(prometheusMetricName('v8js.memory.heap.used', 'By', 'gauge')).toBe('v8js_memory_heap_used_bytes');
    expect(prometheusMetricName('nodejs.eventloop.utilization', '1', 'gauge')).toBe('nodejs_eventloop_utilization_ratio');
    expect(prometheusMetricName('crm.outbox.events', '{event}', 'gauge')).toBe('crm_outbox_events');
    expect(prometheusMetricName('network.io', 'By/s', 'gauge')).toBe('network_io_bytes_per_second');
  });

  test('a counter ends in _total after its unit; a name that holds its unit already keeps it once', () => {
    expect(prometheusMetricName('process.cpu.time', 's', 'counter')).toBe('process_cpu_time_seconds_total');
    expect(prometheusMetricName('crm.refusals', '{request}', 'counter')).toBe('crm_refusals_total');
    expect(prometheusMetricName('jobs_total', '1', 'counter')).toBe('jobs_total');
    expect(prometheusMetricName('work.seconds', 's', 'histogram')).toBe('work_seconds');
    expect(prometheusMetricName('wait_seconds.total', 's', 'counter')).toBe('wait_seconds_total');
  });

  test('units: words and no brackets, whatever the annotation', () => {
    expect(prometheusUnit('ms', 'histogram')).toBe('milliseconds');
    expect(prometheusUnit('{packet}', 'counter')).toBe('');
    expect(prometheusUnit('1', 'counter')).toBe('');
    expect(prometheusUnit('By{compressed}', 'gauge')).toBe('bytes');
  });
});

describe('a collection renamed for /metrics', () => {
  class OnDemand extends MetricReader {
    protected async onShutdown(): Promise<void> {}
    protected async onForceFlush(): Promise<void> {}
  }

  test('the exporter\'s serializer writes the names with their units, and UNIT lines that match them', async () => {
    const reader = new OnDemand();
    const provider = new MeterProvider({ readers: [reader] });
    const meter = provider.getMeter('t');
    meter.createHistogram('rpc.server.call.duration', { unit: 's', description: 'calls', advice: { explicitBucketBoundaries: [0.1, 0.25, 1] } }).record(0.2, { 'rpc.method': 'a.B/C' });
    meter.createCounter('process.cpu.time', { unit: 's', description: 'cpu' }).add(1.5, { 'cpu.mode': 'user' });
    meter.createCounter('crm.refusals', { unit: '{request}', description: 'refused' }).add(2);
    meter.createObservableGauge('v8js.memory.heap.used', { unit: 'By', description: 'heap' }).addCallback((result) => result.observe(1024));
    const { resourceMetrics } = await reader.collect();
    const serializer = new PrometheusSerializer();

    const plain = serializer.serialize(resourceMetrics);
    // What the exporter (0.301) serves on its own: the unit is left out of the name.
    expect(plain).toMatch(/^rpc_server_call_duration_count\{/m);

    const text = serializer.serialize(withPrometheusNames(resourceMetrics));
    expect(text).toMatch(/^# UNIT rpc_server_call_duration_seconds seconds$/m);
    expect(text).toMatch(/^# TYPE rpc_server_call_duration_seconds histogram$/m);
    expect(text).toMatch(/^rpc_server_call_duration_seconds_count\{rpc_method="a\.B\/C",/m);
    expect(text).toMatch(/^rpc_server_call_duration_seconds_bucket\{[^}]*le="0\.25"\} 1$/m);
    expect(text).toMatch(/^# TYPE process_cpu_time_seconds_total counter$/m);
    expect(text).toMatch(/^process_cpu_time_seconds_total\{cpu_mode="user",[^}]*\} 1\.5$/m);
    expect(text).toMatch(/^crm_refusals_total\{[^}]*\} 2$/m);
    expect(text).not.toMatch(/^# UNIT crm_refusals/m);
    expect(text).toMatch(/^v8js_memory_heap_used_bytes\{[^}]*\} 1024$/m);
    expect(text).not.toMatch(/^# UNIT \S+ (s|By|\{.*\})$/m);
    await provider.shutdown();
  });
});
