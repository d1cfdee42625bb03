/**
 * `@crm/kit/testing`: what the suites of every workspace share (bounded waits, the decision to run
 * or skip a suite against a real service, the SQL backends, parity checks, metrics readers). Test
 * code only: it is not built into dist, Node does not resolve it outside Jest (package.json exports
 * it under the `types` condition alone, jest.config.js maps it to this file), and
 * test/conformance/testing-imports.test.ts fails when a file that ships imports it.
 */
export * from './expect-eventually';
export * from './metrics-scrape';
export * from './parity';
// Not isReachableSync: a suite asks serviceAvailable, which CRM_REQUIRE_SERVICES=1 turns into a failure.
export { TEST_DATABASE_URL, TEST_NATS_URL, TEST_REDIS_URL, requireServices, serviceAvailable, toolAvailable } from './reachability';
export * from './sample-resource';
export * from './sql-backends';
export * from './test-metrics';
