import { DataPointType, type MetricData, type ResourceMetrics } from '@opentelemetry/sdk-metrics';

/**
 * OpenTelemetry names to Prometheus names, by the rules of OpenTelemetry's Prometheus compatibility
 * specification: invalid characters become `_`; the unit, in words, ends the name (`s` → `_seconds`,
 * `By` → `_bytes`, `1` on a gauge → `_ratio`, a `{annotation}` alone adds nothing); a monotonic sum
 * then ends in `_total`. So `http.server.request.duration` (unit `s`) is served as
 * `http_server_request_duration_seconds`, and `process.cpu.time` as `process_cpu_time_seconds_total`.
 *
 * The Prometheus exporter (0.301) applies only the first and the last rule: it would serve a
 * duration in seconds as `http_server_request_duration`. The instruments keep their semantic-
 * convention names and UCUM units, and `/metrics` renames them with `withPrometheusNames` before the
 * exporter's serializer writes them.
 */

/** How Prometheus types an instrument: a monotonic sum is a counter, any other sum a gauge. */
export type PrometheusKind = 'counter' | 'gauge' | 'histogram';

const UNITS: Record<string, string> = {
  d: 'days',
  h: 'hours',
  min: 'minutes',
  s: 'seconds',
  ms: 'milliseconds',
  us: 'microseconds',
  ns: 'nanoseconds',
  By: 'bytes',
  KiBy: 'kibibytes',
  MiBy: 'mebibytes',
  GiBy: 'gibibytes',
  TiBy: 'tebibytes',
  KBy: 'kilobytes',
  MBy: 'megabytes',
  GBy: 'gigabytes',
  TBy: 'terabytes',
  m: 'meters',
  V: 'volts',
  A: 'amperes',
  J: 'joules',
  W: 'watts',
  g: 'grams',
  Cel: 'celsius',
  Hz: 'hertz',
  '%': 'percent',
};
/** The denominator of a rate (`By/s` → `bytes_per_second`). */
const PER_UNITS: Record<string, string> = { s: 'second', m: 'minute', h: 'hour', d: 'day', w: 'week', mo: 'month', y: 'year' };

const sanitize = (text: string) => text.replace(/[^a-zA-Z0-9_]/g, '_').replace(/_{2,}/g, '_');

/** The unit in Prometheus' words, or '' when it has none (a count: `{request}`, or `1` but on a gauge). */
export function prometheusUnit(unit: string, kind: PrometheusKind): string {
  const bare = unit.replace(/\{[^}]*\}/g, '').trim();
  if (bare === '1') return kind === 'gauge' ? 'ratio' : '';
  if (bare === '') return '';
  const [main = '', per] = bare.split('/', 2);
  const words = [main ? (UNITS[main] ?? main) : '', per ? `per_${PER_UNITS[per] ?? UNITS[per] ?? per}` : ''].filter(Boolean).join('_');
  return sanitize(words).replace(/^_|_$/g, '');
}

/**
 * The name a metric is served under, without the `_total` a counter's samples add (the exporter's
 * serializer adds that): the sanitized name, then its unit unless the name already holds it.
 */
export function prometheusBaseName(name: string, unit: string, kind: PrometheusKind): string {
  let base = sanitize(name);
  if (kind === 'counter') base = base.replace(/_total$/, '');
  const suffix = prometheusUnit(unit, kind);
  return suffix && !`_${base}_`.includes(`_${suffix}_`) ? `${base}_${suffix}` : base;
}

/** The full name of a metric's series: a histogram's add `_bucket`, `_sum` and `_count` to it. */
export function prometheusMetricName(name: string, unit: string, kind: PrometheusKind): string {
  const base = prometheusBaseName(name, unit, kind);
  return kind === 'counter' ? `${base}_total` : base;
}

function kindOf(metric: MetricData): PrometheusKind {
  if (metric.dataPointType === DataPointType.HISTOGRAM) return 'histogram';
  return metric.dataPointType === DataPointType.SUM && metric.isMonotonic ? 'counter' : 'gauge';
}

/**
 * A collection with each metric renamed as Prometheus expects (see the file's comment), and its
 * unit in words, so the `# UNIT` line the serializer writes matches the name's suffix.
 */
export function withPrometheusNames(collected: ResourceMetrics): ResourceMetrics {
  return {
    ...collected,
    scopeMetrics: collected.scopeMetrics.map((scope) => ({
      ...scope,
      metrics: scope.metrics.map((metric): MetricData => {
        const kind = kindOf(metric);
        const { name, unit } = metric.descriptor;
        return { ...metric, descriptor: { ...metric.descriptor, name: prometheusBaseName(name, unit, kind), unit: prometheusUnit(unit, kind) } };
      }),
    })),
  };
}
