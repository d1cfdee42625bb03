import { execFileSync } from 'node:child_process';
import { RUNTIME_INSTRUMENTS, prometheusName } from '../metrics';

/**
 * What `/metrics` of a fresh process serves: a child (of the built `@crm/kit`, as `crm start` runs
 * it) starts telemetry on a free port, records one point of every instrument of the catalogue, and
 * scrapes itself until the runtime's series are all there (a GC forced so that its pauses are);
 * the text of its last scrape is returned. The child gives up after `timeoutMs` and returns what it
 * has, so a series that never appears fails the caller's assertion, not a timeout.
 */
export function scrapeFreshProcess(timeoutMs = 15_000): string {
  const expected = Object.keys(RUNTIME_INSTRUMENTS).map((name) => `# TYPE ${prometheusName(name as keyof typeof RUNTIME_INSTRUMENTS)} `);
  const script = `
    const { startTelemetry, stopTelemetry, metricsListener } = require('@crm/kit/telemetry');
    startTelemetry('metrics-scrape');
    const kit = require('@crm/kit');
    for (const [name, spec] of Object.entries(kit.INSTRUMENTS)) {
      if (spec.kind === 'histogram') kit.recordHistogram(name, 0.02, {});
      if (spec.kind === 'counter') kit.addCount(name, 1, {});
    }
    kit.observeGauges((observe) => {
      for (const [name, spec] of Object.entries(kit.INSTRUMENTS)) if (spec.kind === 'gauge') observe(name, 1, {});
    });
    const expected = ${JSON.stringify(expected)};
    (async () => {
      const { address } = await metricsListener();
      const deadline = Date.now() + ${timeoutMs};
      let text = '';
      globalThis.gc();
      do {
        await new Promise((resolve) => setTimeout(resolve, 100));
        text = await (await fetch('http://' + address + '/metrics')).text();
      } while (Date.now() < deadline && !expected.every((line) => text.includes(line)));
      process.stdout.write(text);
      await stopTelemetry(200);
      process.exit(0);
    })().catch((error) => { process.stderr.write(String(error && error.stack || error)); process.exit(1); });`;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_')));
  return execFileSync(process.execPath, ['--expose-gc', '-e', script], {
    env: { ...clean, METRICS_PORT: '0', METRICS_HOST: '127.0.0.1' },
    encoding: 'utf8',
    timeout: timeoutMs + 30_000,
    maxBuffer: 16 * 1024 * 1024,
  });
}
