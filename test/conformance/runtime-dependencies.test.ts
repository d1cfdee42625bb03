import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';

/**
 * What the services load at run time must not subclass String. In V8 (Node 20, 24 and 26 alike),
 * one `class X extends String` anywhere in the process makes every `charCodeAt` four to nine times
 * slower, and the protobuf encoders, Fastify's serializer and the SQL driver all read strings that
 * way. ioredis 6 defines one for RESP3 (`VerbatimString`); measured, writing a list page's strings
 * as UTF-8 went from 46 to 290-440 ns per string once it was loaded, so the project stays on
 * ioredis 5 (gateway/README.md, "The request path's own cost"; README.md, "Dependency notes").
 * This test reads every non-development package of the lockfile.
 */
const REPO = path.resolve(__dirname, '../..');
const SUBCLASS_OF_STRING = /\bclass\s+[\w$]+\s+extends\s+String\b/;

function* scripts(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (name === 'node_modules' || name === 'test' || name === 'tests') continue;
    const stat = statSync(full);
    if (stat.isDirectory()) yield* scripts(full);
    else if (/\.(c|m)?js$/.test(name)) yield full;
  }
}

test('no run-time dependency subclasses String', () => {
  const lock = JSON.parse(readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; link?: boolean }>;
  };
  const runtime = Object.entries(lock.packages)
    .filter(([location, entry]) => location.includes('node_modules/') && !entry.dev && !entry.link)
    .map(([location]) => path.join(REPO, location));
  expect(runtime.length).toBeGreaterThan(50);
  expect(runtime).toContain(path.join(REPO, 'node_modules/ioredis'));
  const offenders = runtime.flatMap((dir) => {
    try {
      return [...scripts(dir)].filter((file) => SUBCLASS_OF_STRING.test(readFileSync(file, 'utf8')));
    } catch {
      return []; // an optional dependency not installed on this platform
    }
  });
  expect(offenders.map((file) => path.relative(REPO, file))).toEqual([]);
});
