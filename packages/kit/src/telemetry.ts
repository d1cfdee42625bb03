/**
 * OpenTelemetry bootstrap. Loaded before anything else in a process (the `crm` entry point requires
 * this file first), because the gRPC instrumentation works by patching that module as it loads. It
 * must therefore import nothing that loads `@grpc/grpc-js` itself. HTTP has no instrumentation: the
 * gateway, the one HTTP server, records its own request spans and metric (gateway/src/http-tracing.ts).
 *
 * Spans are recorded and exported over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` (or the
 * traces-specific variable) is set and `OTEL_TRACES_EXPORTER` is not `none`, sampled as the standard
 * variables say (OTEL_TRACES_SAMPLER, default parentbased_always_on; parentbased_traceidratio with
 * OTEL_TRACES_SAMPLER_ARG keeps a share). Then W3C trace context flows gateway → gRPC → SQL → events.
 * Otherwise no tracer is installed and a span costs nothing: a trace context a client sent still
 * travels on (its ids are carried, not recorded), and nothing else is made up.
 * Metrics are pulled: Prometheus text at `/metrics` on METRICS_PORT (see metricsEndpoint). Logs
 * follow the SDK's own environment rules, but only when they have somewhere to go (exportsSignal).
 */
import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

let sdk: NodeSDK | undefined;
let metricsServer: import('node:http').Server | undefined;

type Signal = 'TRACES' | 'METRICS' | 'LOGS';

/**
 * Whether a signal is exported: not disabled, and either an OTLP endpoint is configured (general or
 * for the signal) or a non-OTLP exporter (`console`, `prometheus`) is named for it. Without this
 * check the SDK's defaults aim metrics and logs at http://localhost:4318 whether a collector is
 * there or not: a failed export every minute, and at shutdown a last export retried for seconds
 * (7.7 s of the gateway's SIGTERM-to-exit, measured).
 */
export function exportsSignal(signal: Signal, env: NodeJS.ProcessEnv = process.env): boolean {
  const exporters = (env[`OTEL_${signal}_EXPORTER`] ?? '').split(',').map((name) => name.trim()).filter(Boolean);
  if (env.OTEL_SDK_DISABLED === 'true' || exporters.includes('none')) return false;
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT || env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]) return true;
  return signal !== 'TRACES' && exporters.some((name) => name !== 'otlp');
}

/** Spans go out over OTLP only (the one exporter built below), so they need an endpoint. */
export function exportsTraces(env: NodeJS.ProcessEnv = process.env): boolean {
  return exportsSignal('TRACES', env);
}

export const DEFAULT_METRICS_PORT = 9464;

/**
 * Where the process serves `/metrics` (Prometheus text format): `METRICS_PORT` (default 9464; `off`
 * serves nothing; `0` any free port) on `METRICS_HOST` (default 127.0.0.1; a container sets
 * 0.0.0.0). Never the public API's port: the gateway's is `PORT`.
 */
export function metricsEndpoint(env: NodeJS.ProcessEnv = process.env): { host: string; port: number } | undefined {
  const given = (env.METRICS_PORT ?? '').trim();
  if (given === 'off') return undefined;
  const port = given === '' ? DEFAULT_METRICS_PORT : Number(given);
  if (!/^\d{1,5}$/.test(given || '0') || port > 65_535) throw new Error(`METRICS_PORT must be a port number (0-65535) or off, got "${given}"`);
  return { host: env.METRICS_HOST?.trim() || '127.0.0.1', port };
}

export function startTelemetry(serviceName: string): void {
  if (sdk) return;
  const processors: SpanProcessor[] = exportsTraces() ? [new BatchSpanProcessor(new OTLPTraceExporter())] : [];
  const endpoint = metricsEndpoint();
  // The exporter's own server cannot take port 0 (it reads 0 as "the default"): ours serves it.
  const prometheus = endpoint ? new PrometheusExporter({ preventServerStart: true }) : undefined;
  sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: process.env.OTEL_SERVICE_NAME || serviceName }),
    spanProcessors: processors,
    // Metrics are pulled from /metrics; absent, the SDK would build readers from the environment.
    metricReaders: prometheus ? [prometheus] : [],
    ...(exportsSignal('LOGS') ? {} : { logRecordProcessors: [] }),
    instrumentations: [new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] })],
  });
  sdk.start();
  if (prometheus && endpoint) serveMetrics(prometheus, endpoint);
}

/**
 * `GET /metrics` on its own listener. Loaded after the SDK started, like every other use of `http`;
 * it does not keep the process alive, and a port already taken is reported, not fatal.
 */
function serveMetrics(exporter: PrometheusExporter, endpoint: { host: string; port: number }): void {
  void import('node:http').then(({ createServer }) => {
    const server = createServer((request, response) => {
      if ((request.url ?? '').split('?')[0] === '/metrics' && (request.method === 'GET' || request.method === 'HEAD')) {
        exporter.getMetricsRequestHandler(request, response);
        return;
      }
      response.statusCode = 404;
      response.end('not found: metrics are at /metrics\n');
    });
    server.on('error', (error) => process.stderr.write(`crm: metrics not served on ${endpoint.host}:${endpoint.port}: ${error.message}\n`));
    server.listen(endpoint.port, endpoint.host);
    server.unref();
    metricsServer = server;
  });
}

/**
 * Flushes pending telemetry; called on shutdown. Gives up after `timeoutMs`: a collector that does
 * not answer must not hold the process (what was not sent by then is lost, as on a crash).
 */
export async function stopTelemetry(timeoutMs = 5_000): Promise<void> {
  const running = sdk;
  sdk = undefined;
  metricsServer?.close();
  metricsServer = undefined;
  if (!running) return;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, timeoutMs));
    timer.unref();
  });
  await Promise.race([running.shutdown().catch(() => undefined), expired]);
  clearTimeout(timer);
}
