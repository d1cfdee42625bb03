import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { type ApiRecord, CrmError, type RawListParams, baseFields, createCursorCodec, defineResource, parseListQuery } from '@crm/kit';
import { documentLister } from './document-list';
import type { DocumentStore } from './document-store';

/**
 * Lists over a `DocumentStore` keep the rules of every Postgres list: run against the embedded store
 * always and against MongoDB when one is reachable, like the store contract itself.
 */
const people = defineResource({
  name: 'people',
  singular: 'person',
  table: 'people',
  timeField: 'created_at',
  maxLimit: 200,
  customFields: false,
  fields: {
    id: baseFields.id,
    svc_uid: { ...baseFields.svc_uid, readOnly: true, nullable: true },
    name: { type: 'string', readOnly: true, nullable: false, sort: true, search: true },
    email: { type: 'email', readOnly: true, nullable: false, search: true },
    role: { type: 'enum', values: ['owner', 'admin', 'member'], readOnly: true, nullable: false, filter: true, sort: true },
    active: { type: 'boolean', readOnly: true, nullable: false, filter: true },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: baseFields.updated_at,
  },
});

interface PersonDoc {
  _id: string;
  workspace_id: string;
  svc_uid: string | null;
  name: string;
  email: string;
  role: string;
  active: boolean;
  created_at: string;
  updated_at: string;
}

const toRecord = (doc: PersonDoc): ApiRecord => {
  const { _id, workspace_id: _workspace, ...rest } = doc;
  return { id: _id, ...rest };
};

const W1 = '00000000-0000-4000-8000-000000000001';
const W2 = '00000000-0000-4000-8000-000000000002';
const cursors = createCursorCodec('a-test-cursor-secret-of-enough-bytes');

/** The order every list promises, computed plainly: sort keys, then id in the first key's direction. */
function expectedOrder(docs: PersonDoc[], sort: { field: string; direction: 'asc' | 'desc' }[]): string[] {
  const compare = (a: unknown, b: unknown) => (a === b ? 0 : (a as string) < (b as string) ? -1 : 1);
  const byKey = (doc: PersonDoc, field: string) => (field === 'id' ? doc._id : (doc as unknown as Record<string, unknown>)[field]);
  return [...docs]
    .sort((a, b) => {
      for (const s of [...sort, { field: 'id', direction: sort[0]!.direction }]) {
        const c = compare(byKey(a, s.field), byKey(b, s.field));
        if (c) return s.direction === 'asc' ? c : -c;
      }
      return 0;
    })
    .map((doc) => doc._id);
}

export function runDocumentListContract(name: string, open: () => Promise<DocumentStore>): void {
  describe(`document lists: ${name}`, () => {
    let store: DocumentStore;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    const lister = () => documentLister({ spec: people, collection: store.collection<PersonDoc>('people'), cursors, toRecord });
    const collect = async (raw: RawListParams, workspace = W1): Promise<{ ids: string[]; pages: number }> => {
      const ids: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await lister().list(workspace, parseListQuery(people, { ...raw, ...(cursor ? { cursor } : {}) }));
        pages += 1;
        ids.push(...page.data.map((r) => r.id as string));
        expect(page.hasMore).toBe(page.nextCursor !== null);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return { ids, pages };
    };

    const doc = (i: number, overrides: Partial<PersonDoc> = {}): PersonDoc => {
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i % 7)).toISOString();
      return {
        _id: randomUUID(),
        workspace_id: W1,
        svc_uid: null,
        name: ['Ada', 'bea', 'Cy', 'ada'][i % 4]!,
        email: `p${i}@Example.com`,
        role: ['owner', 'admin', 'member'][i % 3]!,
        active: i % 2 === 0,
        created_at: at,
        updated_at: at,
        ...overrides,
      };
    };

    it('pages through every document once, in the order of the sort keys with ties broken by id', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 30 }),
          fc.subarray(['name', 'role', 'created_at'], { minLength: 1, maxLength: 3 }),
          fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
          fc.integer({ min: 1, max: 7 }),
          async (count, keys, descending, limit) => {
            const collection = store.collection<PersonDoc>('people');
            const docs = Array.from({ length: count }, (_, i) => doc(i));
            for (const d of docs) await collection.insertOne(d);
            // Another workspace's documents never appear.
            await collection.insertOne(doc(99, { workspace_id: W2 }));
            const sort = keys.map((field, i) => ({ field, direction: descending[i] ? ('desc' as const) : ('asc' as const) }));
            const raw = { sort: sort.map((s) => `${s.direction === 'desc' ? '-' : ''}${s.field}`).join(','), limit: String(limit) };
            const { ids, pages } = await collect(raw);
            expect(ids).toEqual(expectedOrder(docs, sort));
            // A page that ends exactly at the last document says so: no empty page follows.
            expect(pages).toBe(Math.max(1, Math.ceil(count / limit)));
            for (const d of [...docs]) await collection.deleteOne({ _id: d._id });
            await collection.deleteOne({ workspace_id: W2 });
          },
        ),
        { numRuns: 25 },
      );
    }, 60_000);

    it('filters by typed values, bounds, updated_since and a case-insensitive search', async () => {
      const collection = store.collection<PersonDoc>('people');
      const docs = Array.from({ length: 12 }, (_, i) => doc(i));
      docs[3]!.name = 'Dr. (Who?) [x]*';
      docs[5]!.updated_at = '2026-03-01T00:00:00.000Z';
      for (const d of docs) await collection.insertOne(d);
      const ids = async (raw: RawListParams) => (await collect(raw)).ids.sort();
      const where = (keep: (d: PersonDoc) => boolean) => docs.filter(keep).map((d) => d._id).sort();

      expect(await ids({ role: 'admin' })).toEqual(where((d) => d.role === 'admin'));
      expect(await ids({ active: 'false', role: 'owner' })).toEqual(where((d) => !d.active && d.role === 'owner'));
      expect(await ids({ since: '2026-01-01T00:00:02Z', until: '2026-01-01T00:00:04Z' })).toEqual(
        where((d) => d.created_at >= '2026-01-01T00:00:02.000Z' && d.created_at < '2026-01-01T00:00:04.000Z'),
      );
      expect(await ids({ updated_since: '2026-02-01T00:00:00Z' })).toEqual([docs[5]!._id]);
      expect(await ids({ q: 'ADA' })).toEqual(where((d) => d.name.toLowerCase() === 'ada'));
      expect(await ids({ q: 'example.COM', limit: '5' })).toEqual(where(() => true));
      // Regular-expression characters in q are text.
      expect(await ids({ q: '(who?) [x]*' })).toEqual([docs[3]!._id]);
      expect(await ids({ q: '.*+' })).toEqual([]);
      // Terms of one or two characters are searched like any other.
      expect(await ids({ q: 'Y' })).toEqual(where((d) => d.name.toLowerCase().includes('y')));
      expect(await ids({ q: 'p1' })).toEqual(where((d) => d.email.includes('p1')));
      expect(await ids({ q: '?' })).toEqual([docs[3]!._id]);
      expect(await ids({ q: '.' })).toEqual(where(() => true));
    });

    it('refuses a cursor from another query, another workspace, or one that was altered', async () => {
      const collection = store.collection<PersonDoc>('people');
      for (let i = 0; i < 5; i++) await collection.insertOne(doc(i));
      const first = await lister().list(W1, parseListQuery(people, { limit: '2', sort: 'name' }));
      const cursor = first.nextCursor!;
      const refused = async (workspace: string, raw: RawListParams) => {
        const error = await lister().list(workspace, parseListQuery(people, raw)).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(CrmError);
        expect((error as CrmError).code).toBe('invalid_request');
      };
      await refused(W1, { limit: '2', sort: '-name', cursor });
      await refused(W1, { limit: '2', sort: 'name', role: 'admin', cursor });
      await refused(W2, { limit: '2', sort: 'name', cursor });
      await refused(W1, { limit: '2', sort: 'name', cursor: `${cursor.slice(0, -2)}AA` });
      // The page size may change between pages.
      const rest = await lister().list(W1, parseListQuery(people, { limit: '10', sort: 'name', cursor }));
      expect(rest.data).toHaveLength(3);
      expect(rest.hasMore).toBe(false);
    });

    it('refuses to list on a nullable sort key, whose order the store could not keep', () => {
      const nullable = defineResource({ ...people, fields: { ...people.fields, name: { type: 'string', sort: true } } });
      expect(() => documentLister({ spec: nullable, collection: store.collection<PersonDoc>('people'), cursors, toRecord })).toThrow(/nullable/);
    });
  });
}
