// One Jest run over every workspace. TypeScript sources are compiled by swc on the fly; the
// global setup builds first all the same (turbo: only what changed), because end-to-end tests spawn
// the built `crm` and every suite loads the code @crm/proto generates. So `npx jest`, `npm run jest`
// and `npm test` run alike.
const path = require('node:path');

const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }];
// CommonJS packages that load modules with import(): PGlite (its WebAssembly, Node's own modules),
// the MongoDB driver (`os`) and @fastify/cookie (`cookie`). Jest's VM sandbox runs import() only under
// `node --experimental-vm-modules`; swc turns each into a require(), so no flag is needed. A new
// dependency failing with ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG belongs in this list. The
// ESM-only packages of Scalar's Fastify plugin (/docs) and github-slugger are plain JavaScript too.
const swcScript = ['@swc/jest', { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } }];
const shared = {
  transform: { '/node_modules/(@electric-sql/pglite|mongodb|@fastify/cookie|@scalar|github-slugger|request-filtering-agent)/.+\\.c?js$': swcScript, '^.+\\.(t|j|mj)s$': swc },
  // Dependencies transformed too: ESM-only ones (uuid, cookie), so the CommonJS test runtime can
  // load them, and those that call import() (above).
  transformIgnorePatterns: ['/node_modules/(?!(uuid|cookie|@fastify/cookie|@electric-sql/pglite|mongodb|@scalar|github-slugger|request-filtering-agent)/)'],
  testEnvironment: 'node',
};

const packages = {
  kit: 'packages/kit',
  proto: 'proto',
  directory: 'services/directory',
  'directory-contract': 'services/directory/contract',
  'people-contract': 'services/people/contract',
  'activities-contract': 'services/activities/contract',
  'messaging-contract': 'services/messaging/contract',
  'flows-contract': 'services/flows/contract',
  'webhooks-contract': 'services/webhooks/contract',
  people: 'services/people',
  activities: 'services/activities',
  messaging: 'services/messaging',
  flows: 'services/flows',
  webhooks: 'services/webhooks',
  gateway: 'gateway',
  cli: 'packages/cli',
  sdk: 'packages/sdk',
};
const mapper = {
  '^@crm/kit/telemetry$': path.join(__dirname, 'packages/kit/src/telemetry.ts'),
  // Test code only, never built: this mapping is the only way it loads (packages/kit/src/testing/index.ts).
  '^@crm/kit/testing$': path.join(__dirname, 'packages/kit/src/testing/index.ts'),
  ...Object.fromEntries(Object.entries(packages).map(([name, dir]) => [`^@crm/${name}$`, path.join(__dirname, dir, 'src/index.ts')])),
};

const project = (displayName, roots, extra = {}) => ({
  ...shared,
  moduleNameMapper: mapper,
  displayName,
  roots: roots.map((r) => path.join(__dirname, r)),
  testMatch: ['**/*.test.ts'],
  ...extra,
});

module.exports = {
  globalSetup: path.join(__dirname, 'scripts/jest-global-setup.js'),
  // Integration suites start PGlite (seconds of WebAssembly start-up) and real servers; on a
  // loaded two-core machine Jest's 5 s default fails them for being slow, not wrong.
  testTimeout: 30_000,
  projects: [
    // A context's contract package sits inside its service's folder, so its tests run with the service.
    ...Object.entries(packages)
      .filter(([name]) => !name.endsWith('-contract'))
      .map(([name, dir]) => project(name, [dir])),
    project('infra', ['test/infra']),
    project('conformance', ['test/conformance']),
    project('e2e', ['test/e2e']),
    project('fuzz', ['test/fuzz']),
    // The test servers themselves (an SMTP sink that must tell a cut-off message from a received one).
    project('support', ['test/support']),
  ],
};
