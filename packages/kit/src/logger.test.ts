import { Writable } from 'node:stream';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { createLogger } from './logger';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, log: createLogger('test', 'info', stream) };
}

const contextManager = new AsyncLocalStorageContextManager();
const provider = new TracerProvider();
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  trace.disable();
  context.disable();
  await provider.shutdown();
});

test('a line written inside a span carries its trace_id and span_id; outside one, neither', async () => {
  const { lines, log } = capture();
  log.info('outside');
  let ids: { traceId: string; spanId: string } | undefined;
  await trace.getTracer('test').startActiveSpan('work', async (span) => {
    ids = span.spanContext();
    await Promise.resolve();
    log.child({ component: 'inner' }).warn({ detail: 1 }, 'inside');
    span.end();
  });
  await new Promise((resolve) => setImmediate(resolve));
  expect(lines[0]).not.toHaveProperty('trace_id');
  expect(lines[0]).not.toHaveProperty('span_id');
  expect(lines[1]).toMatchObject({ msg: 'inside', component: 'inner', trace_id: ids!.traceId, span_id: ids!.spanId });
  expect(lines[1]!.trace_id).toMatch(/^[0-9a-f]{32}$/);
});

test('secrets stay redacted beside the trace fields', async () => {
  const { lines, log } = capture();
  await trace.getTracer('test').startActiveSpan('work', async (span) => {
    log.info({ key: 'crm_live_secret', headers: { authorization: 'Bearer x' } }, 'request');
    span.end();
  });
  await new Promise((resolve) => setImmediate(resolve));
  expect(JSON.stringify(lines)).not.toMatch(/crm_live_secret|Bearer x/);
  expect(lines[0]).toHaveProperty('trace_id');
});
