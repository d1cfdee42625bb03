import { DuplicateKeyError, ID_INDEX, type DocumentStore, type IndexSpec } from './document-store';

/**
 * The behaviour every `DocumentStore` must show, run against the embedded store always and against
 * MongoDB when one is reachable. `open` returns a fresh, empty store for each test; the suite closes it.
 */
export function runDocumentStoreContract(name: string, open: () => Promise<DocumentStore>): void {
  describe(`DocumentStore contract: ${name}`, () => {
    let store: DocumentStore;

    beforeEach(async () => {
      store = await open();
    });

    afterEach(async () => {
      await store.close();
    });

    interface Person {
      _id: string;
      workspace_id: string;
      email: string;
      age?: number;
      tags?: string[];
      profile?: { city: string | null };
      svc_uid?: string | null;
    }
    const people = () => store.collection<Person>('people');

    async function expectDuplicate(promise: Promise<unknown>, index: string): Promise<void> {
      const err = await promise.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DuplicateKeyError);
      expect((err as DuplicateKeyError).index).toBe(index);
    }

    const seed = async () => {
      await people().insertOne({ _id: 'p1', workspace_id: 'w1', email: 'a@x.io', age: 30, tags: ['lead'], profile: { city: 'Paris' } });
      await people().insertOne({ _id: 'p2', workspace_id: 'w1', email: 'b@x.io', age: 25, profile: { city: 'Lyon' } });
      await people().insertOne({ _id: 'p3', workspace_id: 'w2', email: 'c@x.io', age: 41, tags: ['vip', 'lead'] });
      await people().insertOne({ _id: 'p4', workspace_id: 'w1', email: 'd@x.io', age: 25 });
    };

    it('returns what was inserted, and null for no match', async () => {
      const doc: Person = { _id: 'p1', workspace_id: 'w1', email: 'a@x.io', profile: { city: null } };
      await people().insertOne(doc);
      expect(await people().findOne({ _id: 'p1' })).toEqual(doc);
      expect(await people().findOne({ _id: 'nope' })).toBeNull();
      expect(await store.collection('empty').findOne({})).toBeNull();
    });

    it('does not let callers change stored documents through their objects', async () => {
      const doc: Person = { _id: 'p1', workspace_id: 'w1', email: 'a@x.io', tags: ['x'] };
      await people().insertOne(doc);
      doc.email = 'changed@x.io';
      doc.tags?.push('y');
      const read = await people().findOne({ _id: 'p1' });
      expect(read).toEqual({ _id: 'p1', workspace_id: 'w1', email: 'a@x.io', tags: ['x'] });
      read!.email = 'changed-again@x.io';
      expect((await people().findOne({ _id: 'p1' }))?.email).toBe('a@x.io');
    });

    it('refuses a second document with the same _id', async () => {
      await people().insertOne({ _id: 'p1', workspace_id: 'w1', email: 'a@x.io' });
      await expectDuplicate(people().insertOne({ _id: 'p1', workspace_id: 'w2', email: 'z@x.io' }), ID_INDEX);
      expect((await people().findOne({ _id: 'p1' }))?.workspace_id).toBe('w1');
    });

    it('evaluates MongoDB query operators', async () => {
      await seed();
      const ids = async (filter: Record<string, unknown>) =>
        (await people().find(filter, { sort: { _id: 1 } })).map((p) => p._id);
      expect(await ids({ workspace_id: 'w1', age: { $gte: 25, $lt: 30 } })).toEqual(['p2', 'p4']);
      expect(await ids({ email: { $in: ['a@x.io', 'c@x.io'] } })).toEqual(['p1', 'p3']);
      expect(await ids({ tags: 'lead' })).toEqual(['p1', 'p3']);
      expect(await ids({ tags: { $exists: false } })).toEqual(['p2', 'p4']);
      expect(await ids({ 'profile.city': 'Lyon' })).toEqual(['p2']);
      expect(await ids({ $or: [{ age: 41 }, { email: 'a@x.io' }] })).toEqual(['p1', 'p3']);
      expect(await ids({ profile: null })).toEqual(['p3', 'p4']);
      expect(await ids({ workspace_id: { $ne: 'w1' } })).toEqual(['p3']);
    });

    it('sorts on several keys and limits', async () => {
      await seed();
      const sorted = await people().find({ workspace_id: 'w1' }, { sort: { age: -1, _id: 1 } });
      expect(sorted.map((p) => p._id)).toEqual(['p1', 'p2', 'p4']);
      const limited = await people().find({}, { sort: { age: 1, _id: -1 }, limit: 2 });
      expect(limited.map((p) => p._id)).toEqual(['p4', 'p2']);
      expect(await people().find({ workspace_id: 'none' })).toEqual([]);
    });

    it('applies $set, $unset and $inc to one matching document', async () => {
      await seed();
      const result = await people().updateOne(
        { _id: 'p1' },
        { $set: { email: 'new@x.io', 'profile.city': 'Nice' }, $unset: { tags: '' }, $inc: { age: 2 } },
      );
      expect(result).toEqual({ matchedCount: 1 });
      expect(await people().findOne({ _id: 'p1' })).toEqual({
        _id: 'p1',
        workspace_id: 'w1',
        email: 'new@x.io',
        age: 32,
        profile: { city: 'Nice' },
      });
    });

    it('updates only the first of several matching documents', async () => {
      await seed();
      expect(await people().updateOne({ workspace_id: 'w1' }, { $set: { svc_uid: 'touched' } })).toEqual({ matchedCount: 1 });
      expect(await people().find({ svc_uid: 'touched' })).toHaveLength(1);
    });

    it('reports no match, and a match that changes nothing', async () => {
      await seed();
      expect(await people().updateOne({ _id: 'nope' }, { $set: { age: 1 } })).toEqual({ matchedCount: 0 });
      expect(await people().updateOne({ _id: 'p2' }, { $set: { age: 25 } })).toEqual({ matchedCount: 1 });
    });

    it('applies a conditional update once when the condition no longer holds', async () => {
      await seed();
      const filter = { _id: 'p2', age: 25 };
      expect(await people().updateOne(filter, { $inc: { age: 1 } })).toEqual({ matchedCount: 1 });
      expect(await people().updateOne(filter, { $inc: { age: 1 } })).toEqual({ matchedCount: 0 });
      expect((await people().findOne({ _id: 'p2' }))?.age).toBe(26);
    });

    it('deletes one matching document', async () => {
      await seed();
      expect(await people().deleteOne({ workspace_id: 'w1', age: 25 })).toEqual({ deletedCount: 1 });
      expect(await people().find({ workspace_id: 'w1', age: 25 })).toHaveLength(1);
      expect(await people().deleteOne({ _id: 'nope' })).toEqual({ deletedCount: 0 });
    });

    it('updates every matching document, and only those', async () => {
      await seed();
      expect(await people().updateMany({ workspace_id: 'w1', age: 25 }, { $set: { svc_uid: 'touched' }, $inc: { age: 1 } })).toEqual({ matchedCount: 2 });
      const touched = await people().find({ svc_uid: 'touched' }, { sort: { _id: 1 } });
      expect(touched.map((p) => [p._id, p.age])).toEqual([
        ['p2', 26],
        ['p4', 26],
      ]);
      expect((await people().findOne({ _id: 'p1' }))?.svc_uid).toBeUndefined();
      expect(await people().updateMany({ workspace_id: 'none' }, { $set: { age: 1 } })).toEqual({ matchedCount: 0 });
      // A conditional update over many: the second finds nothing left to change.
      expect(await people().updateMany({ workspace_id: 'w1', svc_uid: null }, { $set: { svc_uid: 'rest' } })).toEqual({ matchedCount: 1 });
      expect(await people().updateMany({ workspace_id: 'w1', svc_uid: null }, { $set: { svc_uid: 'rest' } })).toEqual({ matchedCount: 0 });
    });

    it('deletes every matching document, and only those', async () => {
      await seed();
      expect(await people().deleteMany({ workspace_id: 'w1', age: { $lte: 25 } })).toEqual({ deletedCount: 2 });
      expect((await people().find({}, { sort: { _id: 1 } })).map((p) => p._id)).toEqual(['p1', 'p3']);
      expect(await people().deleteMany({ workspace_id: 'none' })).toEqual({ deletedCount: 0 });
    });

    describe('unique indexes', () => {
      const emailPerWorkspace: IndexSpec = {
        collection: 'people',
        name: 'people_workspace_email_unique',
        keys: { workspace_id: 1, email: 1 },
        unique: true,
      };
      const svcUidWhenSet: IndexSpec = {
        collection: 'people',
        name: 'people_workspace_svc_uid_unique',
        keys: { workspace_id: 1, svc_uid: 1 },
        unique: true,
        partialFilterExpression: { svc_uid: { $type: 'string' } },
      };

      it('enforces a compound unique index on insert', async () => {
        await store.ensureIndexes([emailPerWorkspace]);
        await people().insertOne({ _id: 'p1', workspace_id: 'w1', email: 'a@x.io' });
        await people().insertOne({ _id: 'p2', workspace_id: 'w2', email: 'a@x.io' });
        await expectDuplicate(people().insertOne({ _id: 'p3', workspace_id: 'w1', email: 'a@x.io' }), emailPerWorkspace.name);
        expect(await people().findOne({ _id: 'p3' })).toBeNull();
      });

      it('enforces a unique index on update and leaves the document unchanged', async () => {
        await store.ensureIndexes([emailPerWorkspace]);
        await people().insertOne({ _id: 'p1', workspace_id: 'w1', email: 'a@x.io' });
        await people().insertOne({ _id: 'p2', workspace_id: 'w1', email: 'b@x.io', age: 1 });
        await expectDuplicate(
          people().updateOne({ _id: 'p2' }, { $set: { email: 'a@x.io' }, $inc: { age: 1 } }),
          emailPerWorkspace.name,
        );
        expect(await people().findOne({ _id: 'p2' })).toEqual({ _id: 'p2', workspace_id: 'w1', email: 'b@x.io', age: 1 });
        // Updating a document to its own key is not a clash.
        expect(await people().updateOne({ _id: 'p2' }, { $set: { email: 'b@x.io', age: 5 } })).toEqual({ matchedCount: 1 });
      });

      it('frees a key when its document is deleted', async () => {
        await store.ensureIndexes([emailPerWorkspace]);
        await people().insertOne({ _id: 'p1', workspace_id: 'w1', email: 'a@x.io' });
        await people().deleteOne({ _id: 'p1' });
        await people().insertOne({ _id: 'p2', workspace_id: 'w1', email: 'a@x.io' });
        expect((await people().findOne({ email: 'a@x.io' }))?._id).toBe('p2');
      });

      it('treats a missing field as null in a non-partial unique index', async () => {
        await store.ensureIndexes([{ collection: 'people', name: 'people_age_unique', keys: { age: 1 }, unique: true }]);
        await people().insertOne({ _id: 'p1', workspace_id: 'w1', email: 'a@x.io' });
        await expectDuplicate(people().insertOne({ _id: 'p2', workspace_id: 'w1', email: 'b@x.io', age: undefined }), 'people_age_unique');
      });

      it('indexes only the documents a partial filter selects', async () => {
        await store.ensureIndexes([svcUidWhenSet]);
        await people().insertOne({ _id: 'p1', workspace_id: 'w1', email: 'a@x.io', svc_uid: null });
        await people().insertOne({ _id: 'p2', workspace_id: 'w1', email: 'b@x.io', svc_uid: null });
        await people().insertOne({ _id: 'p3', workspace_id: 'w1', email: 'c@x.io' });
        await people().insertOne({ _id: 'p4', workspace_id: 'w1', email: 'd@x.io', svc_uid: 'ext-1' });
        await people().insertOne({ _id: 'p5', workspace_id: 'w2', email: 'e@x.io', svc_uid: 'ext-1' });
        await expectDuplicate(people().insertOne({ _id: 'p6', workspace_id: 'w1', email: 'f@x.io', svc_uid: 'ext-1' }), svcUidWhenSet.name);
        await expectDuplicate(people().updateOne({ _id: 'p1' }, { $set: { svc_uid: 'ext-1' } }), svcUidWhenSet.name);
        // Clearing the value takes the document out of the index again.
        await people().updateOne({ _id: 'p4' }, { $set: { svc_uid: null } });
        await people().updateOne({ _id: 'p1' }, { $set: { svc_uid: 'ext-1' } });
        expect((await people().findOne({ workspace_id: 'w1', svc_uid: 'ext-1' }))?._id).toBe('p1');
      });

      it('finds a document by its unique key, through updates and deletes, testing the whole filter', async () => {
        await store.ensureIndexes([emailPerWorkspace]);
        await people().insertOne({ _id: 'p1', workspace_id: 'w1', email: 'a@x.io', age: 30 });
        const byKey = (email: string, extra: Record<string, unknown> = {}) =>
          people().findOne({ workspace_id: 'w1', email, ...extra });
        expect((await byKey('a@x.io'))?._id).toBe('p1');
        expect(await byKey('a@x.io', { age: 31 })).toBeNull();
        expect(await byKey('a@x.io', { age: { $gt: 18 } })).not.toBeNull();
        await people().updateOne({ _id: 'p1' }, { $set: { email: 'b@x.io' } });
        expect(await byKey('a@x.io')).toBeNull();
        expect((await byKey('b@x.io'))?._id).toBe('p1');
        expect((await people().find({ workspace_id: 'w1', email: 'b@x.io' })).map((p) => p._id)).toEqual(['p1']);
        await people().deleteOne({ workspace_id: 'w1', email: 'b@x.io' });
        expect(await byKey('b@x.io')).toBeNull();
      });

      it('creates indexes idempotently', async () => {
        await store.ensureIndexes([emailPerWorkspace, svcUidWhenSet]);
        await store.ensureIndexes([emailPerWorkspace, svcUidWhenSet]);
        await people().insertOne({ _id: 'p1', workspace_id: 'w1', email: 'a@x.io' });
        await expectDuplicate(people().insertOne({ _id: 'p2', workspace_id: 'w1', email: 'a@x.io' }), emailPerWorkspace.name);
      });

      it('refuses to build a unique index over documents that already break it', async () => {
        await people().insertOne({ _id: 'p1', workspace_id: 'w1', email: 'a@x.io' });
        await people().insertOne({ _id: 'p2', workspace_id: 'w1', email: 'a@x.io' });
        await expectDuplicate(store.ensureIndexes([emailPerWorkspace]), emailPerWorkspace.name);
      });

      it('lets only one of several concurrent inserts of the same key win', async () => {
        await store.ensureIndexes([emailPerWorkspace]);
        const attempts = await Promise.allSettled(
          Array.from({ length: 10 }, (_, i) => people().insertOne({ _id: `p${i}`, workspace_id: 'w1', email: 'same@x.io' })),
        );
        expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
        const rejected = attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
        expect(rejected.every((a) => a.reason instanceof DuplicateKeyError)).toBe(true);
        expect(await people().find({ email: 'same@x.io' })).toHaveLength(1);
      });
    });
  });
}
