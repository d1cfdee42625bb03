import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

/**
 * "Tenant scoping is not optional" (packages/kit/README.md, Tenancy in every key): every statement a
 * service writes by hand names the workspace, like the generic store's. A statement that must span
 * workspaces (a worker claiming due work across tenants) says so in the SQL itself with
 * `-- all workspaces: <why>`, so the exception is visible where it is made.
 */
const REPO = path.resolve(__dirname, '../..');
const STATEMENT = /`([^`]*\b(SELECT|INSERT|UPDATE|DELETE)\b[^`]*)`/g;

function* serviceSources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (['node_modules', 'dist', 'contract', 'testing', 'fixtures'].includes(name)) continue;
    if (statSync(full).isDirectory()) yield* serviceSources(full);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && name !== 'migrations.ts') yield full;
  }
}

test('every hand-written statement in a service names the workspace, or says why it spans them', () => {
  const unscoped: string[] = [];
  let statements = 0;
  for (const service of readdirSync(path.join(REPO, 'services'))) {
    const src = path.join(REPO, 'services', service, 'src');
    if (!statSync(src, { throwIfNoEntry: false })?.isDirectory()) continue;
    for (const file of serviceSources(src)) {
      // Comments go (kept as blank lines, so line numbers hold): prose may quote SQL words.
      const text = readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '))
        .replace(/^\s*\/\/.*$/gm, '');
      for (const match of text.matchAll(STATEMENT)) {
        const sql = match[1]!;
        if (!/\b(FROM|INTO|UPDATE)\s+[a-z_]+/i.test(sql)) continue;
        statements++;
        if (!/workspace_id/.test(sql) && !/-- all workspaces: \S/.test(sql)) {
          const line = text.slice(0, match.index).split('\n').length;
          unscoped.push(`${path.relative(REPO, file)}:${line}: ${sql.replace(/\s+/g, ' ').trim().slice(0, 100)}`);
        }
      }
    }
  }
  expect(statements).toBeGreaterThan(10);
  expect(unscoped).toEqual([]);
});
