import { metrics as api } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';

/** One point of a collection: a counter's or gauge's value; a histogram's count and sum. */
export interface MetricPoint {
  name: string;
  attributes: Record<string, unknown>;
  value: number;
  sum?: number;
}

/** A reader collected on demand, as a Prometheus scrape would. */
class OnDemandReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

/**
 * Installs a meter provider for this test file, before any instrument is first used (call it at
 * the top of the file): the process's instruments bind to it, and `collect()` reads them.
 */
export function installTestMetrics() {
  const reader = new OnDemandReader();
  const provider = new MeterProvider({ readers: [reader] });
  api.setGlobalMeterProvider(provider);
  return {
    async collect(): Promise<MetricPoint[]> {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics.flatMap((scope) =>
        scope.metrics.flatMap((metric) =>
          metric.dataPoints.map((point): MetricPoint => {
            const value = point.value as number | { count: number; sum?: number };
            return typeof value === 'number'
              ? { name: metric.descriptor.name, attributes: point.attributes, value }
              : { name: metric.descriptor.name, attributes: point.attributes, value: value.count, sum: value.sum ?? 0 };
          }),
        ),
      );
    },
    shutdown: () => provider.shutdown(),
  };
}

/** The points of `name` whose attributes include every one given. */
export function pointsOf(points: readonly MetricPoint[], name: string, attributes: Record<string, unknown> = {}): MetricPoint[] {
  return points.filter((p) => p.name === name && Object.entries(attributes).every(([key, value]) => p.attributes[key] === value));
}

/** The sum of their values (counts, for a histogram). */
export function total(points: readonly MetricPoint[], name: string, attributes: Record<string, unknown> = {}): number {
  return pointsOf(points, name, attributes).reduce((sum, p) => sum + p.value, 0);
}
