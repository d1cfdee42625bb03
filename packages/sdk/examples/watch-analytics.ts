/**
 * Watches a flow's analytics: prints a line whenever its enrollments or funnel change, until Ctrl-C
 * (or for --for seconds). Both end the wait through an AbortSignal, which the SDK's calls take too.
 *
 *   CRM_API_KEY=svc_live_... node examples/watch-analytics.ts <flow-id> [--every 5] [--for 60]
 */
import { parseArgs } from 'node:util';
import { createCrmClient } from '@crm/sdk';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { every: { type: 'string', default: '5' }, for: { type: 'string' } },
});
const flowId = positionals[0];
if (!flowId) throw new Error('usage: node examples/watch-analytics.ts <flow-id> [--every seconds] [--for seconds]');
const crm = createCrmClient({ baseUrl: process.env.CRM_URL ?? 'http://127.0.0.1:8080', apiKey: process.env.CRM_API_KEY ?? '' });

const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
const signal = args.for ? AbortSignal.any([stop.signal, AbortSignal.timeout(Number(args.for) * 1000)]) : stop.signal;

let last = '';
while (!signal.aborted) {
  try {
    const { data } = await crm.GET('/v1/flows/{id}/analytics', { params: { path: { id: flowId } }, signal });
    const statuses = Object.entries(data.enrollments ?? {}).map(([status, n]) => `${status} ${n}`).join(' · ');
    const funnel = (data.funnel ?? []).map((step) => `${step.node_label ?? step.node_type} ${step.count}`).join(' → ');
    const line = `${statuses || 'no enrollments'} | ${funnel}`;
    if (line !== last) console.log(`${new Date().toISOString().slice(11, 19)} ${data.flow_name}: ${line}`);
    last = line;
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, Number(args.every) * 1000);
      signal.addEventListener('abort', () => (clearTimeout(timer), resolve(undefined)), { once: true });
    });
  } catch (error) {
    if (signal.aborted) break; // the call itself was cut short: that is how watching ends
    throw error;
  }
}
console.log('stopped watching');
