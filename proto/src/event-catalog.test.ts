import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { ActivitiesEvents, FlowsEvents, MessagingEvents, PeopleEvents } from './index';

const REPO = path.resolve(__dirname, '../..');
const SKIP = new Set(['node_modules', 'dist', 'gen', '.git', '.turbo', '.data', 'coverage']);

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) yield* sources(full);
    else if (/\.(ts|mts|cts|js|mjs|cjs)$/.test(name)) yield full;
  }
}

const catalog = { ...PeopleEvents, ...ActivitiesEvents, ...MessagingEvents, ...FlowsEvents };

describe('the event catalog', () => {
  test('every subject is crm.<context>.<entity>.<verb> and appears once', () => {
    const subjects = Object.values(catalog);
    expect(new Set(subjects).size).toBe(subjects.length);
    for (const subject of subjects) expect(subject).toMatch(/^crm\.[a-z_]+\.[a-z_]+\.[a-z_]+$/);
  });

  test('each context publishes only under its own prefix', () => {
    for (const [prefix, events] of [
      ['crm.people.', PeopleEvents],
      ['crm.activities.', ActivitiesEvents],
      ['crm.messaging.', MessagingEvents],
      ['crm.flows.', FlowsEvents],
    ] as const) {
      for (const subject of Object.values(events)) expect(subject.startsWith(prefix)).toBe(true);
    }
  });

  test('no subject of the catalog is written as a string literal outside the .proto files', () => {
    const subjects = new Set<string>(Object.values(catalog));
    const literal = /(['"`])(crm\.[a-z_]+\.[a-z_]+\.[a-z_]+)\1/g;
    const found: string[] = [];
    for (const file of sources(REPO)) {
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, i) => {
        // Comments may name a subject; code must import it.
        if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
        for (const match of line.matchAll(literal)) {
          if (subjects.has(match[2]!)) found.push(`${path.relative(REPO, file)}:${i + 1}: ${match[2]} (import the constant from @crm/proto)`);
        }
      });
    }
    expect(found).toEqual([]);
  });
});
