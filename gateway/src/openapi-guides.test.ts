import { CONTEXTS } from './contexts';
import { describeApi } from './openapi';

/** The guides and the navigation the reference at /docs shows (openapi-guides.ts). */
const document = describeApi(CONTEXTS) as {
  info: { description: string };
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, { tags?: string[] }>>;
};

test('the rules every operation shares are written once, as guides before the operations', () => {
  const headings = [...document.info.description.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
  expect(headings).toEqual(['Authentication', 'Rate limits', 'Idempotency', 'Pagination', 'Errors']);
});

test('one tag per bounded context, with a description, and every operation under exactly one of them', () => {
  expect(document.tags.map((t) => t.name)).toEqual(['People', 'Flows', 'Messaging', 'Activities', 'Directory', 'Webhooks']);
  for (const tag of document.tags) expect(tag.description).toMatch(/\w{3,}.*\./);
  const names = new Set(document.tags.map((t) => t.name));
  const byTag = new Map<string, number>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (method === 'parameters') continue;
      expect([`${method} ${path}`, operation.tags?.length]).toEqual([`${method} ${path}`, 1]);
      expect(names.has(operation.tags![0]!)).toBe(true);
      byTag.set(operation.tags![0]!, (byTag.get(operation.tags![0]!) ?? 0) + 1);
    }
  }
  // Every context has operations, and they are its own: a contact's operations under People, a flow's under Flows.
  expect([...byTag.keys()].sort()).toEqual([...names].sort());
  expect(document.paths['/v1/contacts']!.get!.tags).toEqual(['People']);
  expect(document.paths['/v1/enrollments']!.get!.tags).toEqual(['Flows']);
  expect(document.paths['/v1/users']!.get!.tags).toEqual(['Directory']);
  expect(CONTEXTS.length).toBe(names.size);
});
