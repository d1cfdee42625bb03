/**
 * The drift check: the SDK's committed types are what the document the gateway serves generates
 * now. The build rewrites src/generated/openapi.ts, so in CI (which builds first) the file on disk
 * is always fresh; what can be stale is the committed copy, which is compared too.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CONTEXTS, describeApi } from '@crm/gateway';

/**
 * openapi-typescript is loaded by Node itself: its dependencies are ES modules, which Jest's CommonJS
 * runtime cannot require. The document goes in on stdin, the types come out on stdout.
 */
function typesFromDocument(document: unknown): string {
  const generator = path.join(__dirname, '../scripts/openapi-types.mjs');
  const script = `import { typesFromDocument } from ${JSON.stringify(pathToFileURL(generator).href)};
let input = ''; for await (const chunk of process.stdin) input += chunk;
process.stdout.write(await typesFromDocument(JSON.parse(input)));`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { input: JSON.stringify(document), encoding: 'utf8', maxBuffer: 64 << 20 });
}

const GENERATED = path.join(__dirname, 'generated/openapi.ts');
const REGENERATE = 'regenerate with `npx turbo run build --filter=@crm/sdk` (or `npm run generate -w @crm/sdk`) and commit it';

let expected: string;
beforeAll(() => {
  // The gateway's own code, as startGateway composes it from CONTEXTS (jest maps @crm/gateway to its source).
  expected = typesFromDocument(describeApi(CONTEXTS));
});

test('src/generated/openapi.ts is what the current document generates', () => {
  const onDisk = readFileSync(GENERATED, 'utf8');
  if (onDisk !== expected) throw new Error(`packages/sdk/src/generated/openapi.ts differs from the served document's types: ${REGENERATE}`);
});

test('the committed copy is what the current document generates', () => {
  const repo = path.join(__dirname, '../../..');
  let committed: string;
  try {
    // The index: what `git commit` records (after a commit, HEAD's copy).
    committed = execFileSync('git', ['show', ':packages/sdk/src/generated/openapi.ts'], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 });
  } catch {
    // Not a git checkout (a source archive), or the file is new and not yet added: nothing committed to compare.
    console.warn('sdk drift check: packages/sdk/src/generated/openapi.ts is not in the git index; only the file on disk was compared');
    return;
  }
  if (committed !== expected) throw new Error(`the committed packages/sdk/src/generated/openapi.ts is stale: ${REGENERATE}`);
});
