/**
 * Readiness means "this process can serve". With every component a separate process, one
 * context's service is stopped while clients keep calling every context: the gateway stays ready
 * (so a load balancer keeps it in rotation), every other context keeps answering 2xx, and only the
 * stopped context's routes answer 503 `unavailable`, until it is back.
 */
import { randomBytes } from 'node:crypto';
import { TEST_REDIS_URL, expectEventually, serviceAvailable } from '@crm/kit/testing';
import { grpcServing } from '../support/health';
import { type Stack, startStack } from '../support/stack';

jest.setTimeout(180_000);

const useRedis = serviceAvailable('Redis', TEST_REDIS_URL);
const unique = () => randomBytes(4).toString('hex');

type Phase = 'all up' | 'activities down';
interface Outcome {
  phase: Phase;
  context: 'people' | 'activities';
  route: string;
  status: number;
  code?: string;
}

describe('one context down under load', () => {
  let stack: Stack;
  let key: string;

  beforeAll(async () => {
    // Redis when this machine has one: then readiness also covers it.
    stack = await startStack({ gatewayEnv: { UPSTREAM_TIMEOUT_MS: '2000', ...(useRedis ? { REDIS_URL: TEST_REDIS_URL } : {}) } });
    ({ key } = await stack.workspaceWithKey(`ready-${unique()}`, '*'));
  });
  afterAll(() => stack?.stop());

  test('the gateway stays ready, people keeps answering 2xx, activities answers 503 until it is back', async () => {
    const routes: { context: Outcome['context']; method: string; path: string; body?: () => unknown }[] = [
      { context: 'people', method: 'GET', path: '/v1/contacts?limit=5' },
      { context: 'people', method: 'POST', path: '/v1/contacts', body: () => ({ first_name: 'Load', email: `load-${unique()}@example.com` }) },
      { context: 'people', method: 'GET', path: '/v1/organizations?limit=5' },
      { context: 'people', method: 'GET', path: '/v1/pools?limit=5' },
      { context: 'activities', method: 'GET', path: '/v1/tasks?limit=5' },
      { context: 'activities', method: 'POST', path: '/v1/tasks', body: () => ({ title: `Load ${unique()}` }) },
      { context: 'activities', method: 'GET', path: '/v1/meetings?limit=5' },
    ];
    let phase: Phase | 'transition' = 'all up';
    let running = true;
    const outcomes: Outcome[] = [];
    const readiness: { phase: Phase | 'transition'; status: number }[] = [];

    const worker = async (offset: number) => {
      for (let i = offset; running; i++) {
        const route = routes[i % routes.length]!;
        const at = phase;
        const response = await fetch(`${stack.baseUrl}${route.path}`, {
          method: route.method,
          headers: { authorization: `Bearer ${key}`, ...(route.body ? { 'content-type': 'application/json' } : {}) },
          body: route.body ? JSON.stringify(route.body()) : undefined,
          // The upstream deadline is 2 s: an answer that takes longer than this has hung.
          signal: AbortSignal.timeout(8_000),
        });
        const body = (await response.json().catch(() => undefined)) as { error?: { code: string } } | undefined;
        // Requests that straddle a change of phase belong to neither.
        if (at !== 'transition' && at === phase) {
          outcomes.push({ phase: at, context: route.context, route: `${route.method} ${route.path}`, status: response.status, code: body?.error?.code });
        }
      }
    };
    const prober = async () => {
      while (running) {
        const at = phase;
        const status = (await fetch(`${stack.baseUrl}/readyz`, { signal: AbortSignal.timeout(5_000) })).status;
        readiness.push({ phase: at, status });
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const load = [0, 1, 2, 3].map(worker);
    const probing = prober();
    const during = (p: Phase) => outcomes.filter((o) => o.phase === p);

    try {
      await expectEventually(() => expect(during('all up').filter((o) => o.context === 'activities').length).toBeGreaterThan(10), {
        timeoutMs: 30_000,
      });

      // SIGTERM starts a graceful stop: requests in flight then belong to neither phase.
      phase = 'transition';
      await stack.restart('activities', async () => {
        // The process has exited: its health endpoint is gone.
        expect(await grpcServing(stack.addresses.activities!)).toBe(false);
        phase = 'activities down';
        await expectEventually(
          () => {
            expect(during('activities down').filter((o) => o.context === 'activities').length).toBeGreaterThan(20);
            expect(during('activities down').filter((o) => o.context === 'people').length).toBeGreaterThan(20);
            // long enough for a kubelet's probes to have noticed (a few seconds)
            expect(readiness.filter((r) => r.phase === 'activities down').length).toBeGreaterThan(20);
          },
          { timeoutMs: 30_000 },
        );
        phase = 'transition';
      });
      // Back: the gateway reconnects by itself.
      await expectEventually(async () => expect((await fetch(`${stack.baseUrl}/v1/tasks?limit=1`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200), {
        timeoutMs: 60_000,
        intervalMs: 200,
      });
    } finally {
      running = false;
      await Promise.all([...load, probing]);
    }

    // Before the stop everything answered.
    for (const o of during('all up')) expect([o.route, o.status >= 200 && o.status < 300]).toEqual([o.route, true]);
    // While activities was down: people untouched, activities 503 `unavailable` on every route.
    for (const o of during('activities down').filter((x) => x.context === 'people')) {
      expect([o.route, o.status >= 200 && o.status < 300]).toEqual([o.route, true]);
    }
    for (const o of during('activities down').filter((x) => x.context === 'activities')) {
      expect([o.route, o.status, o.code]).toEqual([o.route, 503, 'unavailable']);
    }
    // And the gateway was ready throughout, so it was never taken out of rotation.
    for (const r of readiness) expect([r.phase, r.status]).toEqual([r.phase, 200]);
  });
});
