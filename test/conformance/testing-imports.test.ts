import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';

/**
 * `@crm/kit/testing` is test code: it is not built into dist, and Node does not resolve it outside
 * Jest. A file that ships (everything the workspaces' tsconfig.json build, plus scripts such as
 * packages/cli/bin) importing it would work under Jest and fail in production, so none may, by the
 * package name or by a path into packages/kit/src/testing. Test code is what every tsconfig leaves
 * out: `*.test.ts`, `*.contract.ts` and a workspace's `src/testing/`.
 */
const REPO = path.resolve(__dirname, '../..');
const KIT_TESTING = path.join(REPO, 'packages/kit/src/testing');
const ROOTS = ['services', 'gateway', 'packages', 'proto'];
const SKIPPED = new Set(['node_modules', 'dist', 'gen', '.turbo', '.data']);
/** The specifier of every import, export ... from, import() and require(). */
const SPECIFIER = /\b(?:from|import|require)\s*\(?\s*(['"])([^'"\n]+)\1/g;

const isTestCode = (file: string) => /\.(test|contract)\.ts$/.test(file) || file.split(path.sep).join('/').includes('/src/testing/');

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (SKIPPED.has(name)) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) yield* sources(full);
    else if (/\.(ts|js|mjs|cjs)$/.test(name) && !name.endsWith('.d.ts')) yield full;
  }
}

/** The imports of `text` (the source of `file`) that reach the kit's test code. */
function testingImports(file: string, text: string): string[] {
  // Comment lines go: prose may name the module.
  const code = text
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
    .join('\n');
  return [...code.matchAll(SPECIFIER)]
    .map((match) => match[2]!)
    .filter((specifier) => {
      if (specifier === '@crm/kit/testing' || specifier.startsWith('@crm/kit/testing/') || /kit\/src\/testing(\/|$)/.test(specifier)) return true;
      if (!specifier.startsWith('.')) return false;
      const target = path.resolve(path.dirname(file), specifier);
      return target === KIT_TESTING || target.startsWith(`${KIT_TESTING}${path.sep}`);
    });
}

test('the check finds an import of the kit test code however it is written, and nothing else', () => {
  const shipped = path.join(REPO, 'packages/kit/src/health.ts');
  expect(testingImports(shipped, "import { expectEventually } from '@crm/kit/testing';")).toEqual(['@crm/kit/testing']);
  expect(testingImports(shipped, "import type { SqlBackend } from './testing/sql-backends';")).toEqual(['./testing/sql-backends']);
  expect(testingImports(shipped, "export * from './testing';")).toEqual(['./testing']);
  expect(testingImports(path.join(REPO, 'gateway/src/app.ts'), "const t = require('../../packages/kit/src/testing/reachability');")).toHaveLength(1);
  expect(testingImports(path.join(REPO, 'gateway/src/app.ts'), "await import(\n  '@crm/kit/testing'\n);")).toHaveLength(1);
  expect(testingImports(shipped, "import { sleep } from './events/concurrency';\n// see '@crm/kit/testing'\n/* from '@crm/kit/testing' */")).toEqual([]);
  expect(testingImports(path.join(REPO, 'services/people/src/main.ts'), "import { x } from './testing/harness';")).toEqual([]);
});

test('no file that ships imports @crm/kit/testing', () => {
  const shipped = ROOTS.flatMap((root) => [...sources(path.join(REPO, root))]).filter((file) => !isTestCode(file));
  // The walk found the code (every workspace's src), not an empty folder.
  expect(shipped.length).toBeGreaterThan(100);
  expect(shipped).toContain(path.join(REPO, 'packages/cli/bin/crm.js'));
  expect(shipped).not.toContain(path.join(REPO, 'packages/kit/src/testing/index.ts'));
  const offenders = shipped.flatMap((file) => testingImports(file, readFileSync(file, 'utf8')).map((specifier) => `${path.relative(REPO, file)}: ${specifier}`));
  expect(offenders).toEqual([]);
});
