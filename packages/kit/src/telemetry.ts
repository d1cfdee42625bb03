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
 * Metrics are pulled: Prometheus text at `/metrics` on METRICS_PORT (see metricsEndpoint), named as
 * Prometheus expects (prometheus-names.ts); where they are served, the Node.js runtime's and the
 * process's own are too (RUNTIME_INSTRUMENTS in metrics.ts). Logs follow the SDK's own environment
 * rules, but only when they have somewhere to go (exportsSignal).
 */
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { diag } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { RuntimeNodeInstrumentation } from '@opentelemetry/instrumentation-runtime-node';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { type ListenTarget, listenProblem } from './listen';
import { observeProcess } from './metrics';
import { withPrometheusNames } from './prometheus-names';

let sdk: NodeSDK | undefined;
let metricsServer: import('node:http').Server | undefined;
let metricsListening: Promise<MetricsListener> | undefined;

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
  const processors: SpanProcessor[] = exportsTraces() ? [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })] : [];
  const endpoint = metricsEndpoint();
  // The exporter's own server cannot take port 0 (it reads 0 as "the default"): ours serves it.
  const prometheus = endpoint ? new PrometheusExporter({ preventServerStart: true }) : undefined;
  sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: process.env.OTEL_SERVICE_NAME || serviceName }),
    spanProcessors: processors,
    // Metrics are pulled from /metrics; absent, the SDK would build readers from the environment.
    metricReaders: prometheus ? [prometheus] : [],
    ...(exportsSignal('LOGS') ? {} : { logRecordProcessors: [] }),
    instrumentations: [
      new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] }),
      // Read when scraped, but for GC pauses (an observer of the runtime's GC events) and the
      // event-loop delay, a native histogram sampled on a timer: 20 ms, not the default 10, halves
      // its cost to an idle process and still takes 750 samples per 15 s scrape. Not registered
      // where nothing reads them.
      ...(prometheus ? [new RuntimeNodeInstrumentation({ monitoringPrecision: 20 })] : []),
    ],
  });
  sdk.start();
  if (prometheus && endpoint) {
    observeProcess();
    metricsListening = serveMetrics(prometheus, endpoint, Boolean(process.env.METRICS_PORT?.trim()));
    // Awaited by the process's start (metricsListener); until then a failure must not end it unhandled.
    metricsListening.catch(() => undefined);
  }
}

/** Where `/metrics` is served; `instead` is the default address that was taken. */
export interface MetricsListener {
  address: string;
  instead?: string;
}

/**
 * Where `/metrics` is served once its listener is up (undefined when METRICS_PORT is `off` or
 * telemetry was not started). Rejects with one line naming METRICS_PORT when the port it sets
 * cannot be listened on.
 */
export function metricsListener(): Promise<MetricsListener> | undefined {
  return metricsListening;
}

/**
 * `GET /metrics` on its own listener. Loaded after the SDK started, like every other use of `http`;
 * it does not keep the process alive. With METRICS_PORT unset, 9464 taken (another process on the
 * machine serves its own there) means any free port: metrics are the process's own business. A
 * port the user set is that port or a failure naming it.
 */
async function serveMetrics(exporter: PrometheusExporter, endpoint: { host: string; port: number }, given: boolean): Promise<MetricsListener> {
  const { createServer } = await import('node:http');
  // The serializer the exporter uses (its own instance is private), with the same defaults.
  const serializer = new PrometheusSerializer();
  const server = createServer((request, response) => {
    if ((request.url ?? '').split('?')[0] === '/metrics' && (request.method === 'GET' || request.method === 'HEAD')) {
      void writeMetrics(exporter, serializer, response);
      return;
    }
    response.statusCode = 404;
    response.end('not found: metrics are at /metrics\n');
  });
  server.unref();
  const target: ListenTarget = { variable: 'METRICS_PORT', value: String(endpoint.port), isDefault: !given, ...endpoint };
  // once() rejects with the listen's error; a server that failed to listen may listen again.
  const listen = async (port: number) => {
    server.listen(port, endpoint.host);
    await once(server, 'listening');
    return (server.address() as import('node:net').AddressInfo).port;
  };
  let port: number;
  let instead: string | undefined;
  try {
    port = await listen(endpoint.port).catch((error: NodeJS.ErrnoException) => {
      if (given || error.code !== 'EADDRINUSE') throw error;
      instead = `${endpoint.host}:${endpoint.port}`;
      return listen(0);
    });
  } catch (error) {
    throw new Error(listenProblem(target, (error as NodeJS.ErrnoException).code ?? (error as Error).message));
  }
  server.on('error', (error) => process.stderr.write(`crm: metrics listener on ${endpoint.host}:${port}: ${error.message}\n`));
  metricsServer = server;
  return { address: `${endpoint.host}:${port}`, ...(instead ? { instead } : {}) };
}

const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

/** One scrape: the exporter's collection, renamed as Prometheus expects, in the exporter's format. */
async function writeMetrics(exporter: PrometheusExporter, serializer: PrometheusSerializer, response: ServerResponse): Promise<void> {
  try {
    const { resourceMetrics, errors } = await exporter.collect();
    if (errors.length) diag.error('metrics: collection errors', ...errors);
    response.writeHead(200, { 'content-type': PROMETHEUS_TEXT });
    response.end(serializer.serialize(withPrometheusNames(resourceMetrics)));
  } catch (error) {
    response.writeHead(500, { 'content-type': PROMETHEUS_TEXT });
    response.end(`# metrics could not be collected: ${error instanceof Error ? error.message : String(error)}\n`);
  }
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
  metricsListening = undefined;
  if (!running) return;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, timeoutMs));
    timer.unref();
  });
  await Promise.race([running.shutdown().catch(() => undefined), expired]);
  clearTimeout(timer);
}
