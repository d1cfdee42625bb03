// One Jest run over every workspace. TypeScript sources are compiled by swc on the fly,
// so unit and integration tests need no build; end-to-end tests spawn the built `crm`.
const path = require('node:path');

const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }];
const shared = {
  transform: { '^.+\\.(t|j|mj)s$': swc },
  // ESM-only dependencies are transformed too, so the CommonJS test runtime can load them.
  transformIgnorePatterns: ['/node_modules/(?!(uuid)/)'],
  testEnvironment: 'node',
};

const packages = {
  kit: 'packages/kit',
  proto: 'proto',
  directory: 'services/directory',
  people: 'services/people',
  activities: 'services/activities',
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
  projects: [
    ...Object.entries(packages).map(([name, dir]) => project(name, [dir])),
    project('infra', ['test/infra']),
    project('e2e', ['test/e2e']),
  ],
};
