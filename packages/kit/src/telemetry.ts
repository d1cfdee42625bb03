/**
 * OpenTelemetry bootstrap. Loaded before anything else in a process (the `crm` entry point requires
 * this file first), because the HTTP and gRPC instrumentations work by patching those modules as they
 * load. It must therefore import nothing that loads `http` or `@grpc/grpc-js` itself.
 *
 * Spans are always created, so W3C trace context flows gateway → gRPC → SQL → events. They are
 * exported over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` (or the traces-specific variable) is set
 * and `OTEL_TRACES_EXPORTER` is not `none`; otherwise they are dropped at the end of the request.
 */
import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

let sdk: NodeSDK | undefined;

export function exportsTraces(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_TRACES_EXPORTER === 'none' || env.OTEL_SDK_DISABLED === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

export function startTelemetry(serviceName: string): void {
  if (sdk) return;
  const processors: SpanProcessor[] = exportsTraces() ? [new BatchSpanProcessor(new OTLPTraceExporter())] : [];
  sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: process.env.OTEL_SERVICE_NAME || serviceName }),
    spanProcessors: processors,
    instrumentations: [
      new HttpInstrumentation({
        // Health probes would otherwise flood every trace backend.
        ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/readyz',
      }),
      new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] }),
    ],
  });
  sdk.start();
}

/** Flushes pending spans; called on shutdown. */
export async function stopTelemetry(): Promise<void> {
  const running = sdk;
  sdk = undefined;
  await running?.shutdown().catch(() => undefined);
}
