// One Jest run over every workspace. TypeScript sources are compiled by swc on the fly,
// so unit and integration tests need no build; end-to-end tests spawn the built `crm`.
const path = require('node:path');

const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }];
const shared = {
  transform: { '^.+\\.(t|j|mj)s$': swc },
  // ESM-only dependencies are transformed too, so the CommonJS test runtime can load them.
  transformIgnorePatterns: ['/node_modules/(?!(uuid|cookie)/)'],
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
  people: 'services/people',
  activities: 'services/activities',
  messaging: 'services/messaging',
  flows: 'services/flows',
  gateway: 'gateway',
  cli: 'packages/cli',
};
const mapper = {
  '^@crm/kit/telemetry$': path.join(__dirname, 'packages/kit/src/telemetry.ts'),
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
