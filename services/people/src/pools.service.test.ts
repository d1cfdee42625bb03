import { CrmError, newId, parseListQuery } from '@crm/kit';
import { expectEventually, sqlBackends } from '@crm/kit/testing';
import { poolContacts, pools } from '@crm/people-contract';
import { type PeopleHarness, openPeople } from './testing/harness';
import { PeopleEvents } from '@crm/proto';

/** Pools, memberships, bulk members and the exact contacts_count, against PGlite and Postgres. */
describe.each(sqlBackends())('pools and memberships on $name', (backend) => {
  let h: PeopleHarness;
  const ws = newId();
  const otherWs = newId();
  const user = newId();
  const ctx = { workspaceId: ws, actorUserId: user };

  beforeAll(async () => {
    h = await openPeople(backend, 't_pools');
  });
  afterAll(async () => h.close());

  const contact = async (fields: Record<string, unknown> = {}, workspaceId = ws) =>
    (await h.people.contacts.create({ workspaceId }, { first_name: 'C', ...fields })).id as string;
  const pool = async (fields: Record<string, unknown> = {}, workspaceId = ws) =>
    (await h.people.pools.create({ workspaceId }, { name: 'Pool', ...fields })).id as string;
  const countOf = async (poolId: string) => (await h.people.pools.get(ws, poolId)).contacts_count;
  const actualCount = (poolId: string) => h.count('pool_contacts', 'pool_id = $1', [poolId]);

  describe('pools', () => {
    test('create applies defaults, ignores system fields and keeps custom fields', async () => {
      const created = await h.people.pools.create(ctx, { name: 'Q3 webinar', contacts_count: 99, id: 'x', region: 'emea' });
      expect(created).toMatchObject({
        name: 'Q3 webinar',
        description: null,
        owner_id: null,
        visibility: 'private',
        contacts_count: 0,
        svc_uid: null,
        region: 'emea',
      });
      expect(created.created_at).toMatch(/\.\d{3}Z$/);
      await expectEventually(() => expect(h.eventsOf(PeopleEvents.PoolCreated).map((e) => e.data.id)).toContain(created.id));
    });

    test('validation: name required and never null, visibility an enum, owner_id a UUID', async () => {
      const error = (await h.people.pools.create(ctx, { visibility: 'public', owner_id: 'bob' }).catch((e: unknown) => e)) as CrmError;
      expect(error.code).toBe('validation_failed');
      expect(error.details).toEqual(
        expect.arrayContaining([
          { field: 'name', message: 'is required' },
          { field: 'visibility', message: 'must be one of private, workspace' },
          { field: 'owner_id', message: 'must be a UUID' },
        ]),
      );
      const id = await pool();
      await expect(h.people.pools.update(ctx, id, { name: null })).rejects.toMatchObject({ code: 'validation_failed' });
      await expect(h.people.pools.update(ctx, id, { visibility: null })).rejects.toMatchObject({ code: 'validation_failed' });
      const patched = await h.people.pools.update(ctx, id, { visibility: 'workspace', description: 'All EMEA leads', contacts_count: 5 });
      expect(patched).toMatchObject({ visibility: 'workspace', description: 'All EMEA leads', contacts_count: 0 });
    });

    test('lists filter by owner_id and visibility, sort by contacts_count, and search name and description', async () => {
      const owner = newId();
      const small = await pool({ name: 'Alpha small', owner_id: owner, visibility: 'workspace' });
      const big = await pool({ name: 'Beta big', owner_id: owner, description: 'conference attendees' });
      await h.people.members.add(ctx, big, [await contact(), await contact()]);
      await h.people.members.add(ctx, small, [await contact()]);
      const list = (params: Record<string, string>) => h.people.pools.list(ws, parseListQuery(pools, params));
      expect((await list({ owner_id: owner, sort: '-contacts_count' })).data.map((p) => [p.id, p.contacts_count])).toEqual([
        [big, 2],
        [small, 1],
      ]);
      expect((await list({ owner_id: owner, visibility: 'workspace' })).data.map((p) => p.id)).toEqual([small]);
      expect((await list({ owner_id: owner, q: 'ATTENDEE' })).data.map((p) => p.id)).toEqual([big]);
      expect(() => parseListQuery(pools, { visibility: 'public' })).toThrow(CrmError);
    });

    test("another workspace's pool is invisible", async () => {
      const id = await pool({}, otherWs);
      await expect(h.people.pools.get(ws, id)).rejects.toMatchObject({ code: 'not_found' });
      await expect(h.people.pools.delete(ctx, id)).rejects.toMatchObject({ code: 'not_found' });
      await expect(h.people.members.add(ctx, id, [await contact()])).rejects.toMatchObject({ code: 'not_found' });
    });

    test('deleting a pool removes its memberships, keeps the contacts, and publishes pool.deleted', async () => {
      const id = await pool({ svc_uid: `p-${newId()}` });
      const members = [await contact(), await contact()];
      await h.people.members.add(ctx, id, members);
      await h.people.pools.delete(ctx, id);
      expect(await actualCount(id)).toBe(0);
      for (const c of members) await expect(h.people.contacts.get(ws, c)).resolves.toBeDefined();
      await expect(h.people.pools.get(ws, id)).rejects.toMatchObject({ code: 'not_found' });
      await expectEventually(() => expect(h.eventsOf(PeopleEvents.PoolDeleted).map((e) => e.data.id)).toContain(id));
    });
  });

  describe('memberships', () => {
    test('create records who added the contact and when, and moves the count', async () => {
      const p = await pool();
      const c = await contact();
      const created = await h.people.poolContacts.create(ctx, { pool_id: p, contact_id: c, added_by: newId(), added_at: '2001-01-01T00:00:00Z' });
      expect(created).toMatchObject({ pool_id: p, contact_id: c, added_by: user, svc_uid: null });
      expect(created.added_at).toBe(created.created_at);
      expect(created.added_at).not.toBe('2001-01-01T00:00:00.000Z');
      expect(await countOf(p)).toBe(1);
      expect(await h.people.poolContacts.get(ws, created.id as string)).toEqual(created);
      await expectEventually(() =>
        expect(h.eventsOf(PeopleEvents.PoolContactCreated).find((e) => e.data.id === created.id)?.data).toEqual({
          id: created.id,
          pool_id: p,
          contact_id: c,
          added_by: user,
        }),
      );
      const anonymous = await h.people.poolContacts.create({ workspaceId: ws }, { pool_id: p, contact_id: await contact() });
      expect(anonymous.added_by).toBeNull();
    });

    test('a duplicate membership is 409 and leaves the count alone', async () => {
      const p = await pool();
      const c = await contact();
      await h.people.poolContacts.create(ctx, { pool_id: p, contact_id: c });
      await expect(h.people.poolContacts.create(ctx, { pool_id: p, contact_id: c })).rejects.toMatchObject({
        code: 'conflict',
        details: { field: 'contact_id' },
      });
      expect(await countOf(p)).toBe(1);
      expect(await actualCount(p)).toBe(1);
    });

    test('a missing pool or contact (or one of another workspace) is 422 naming the field', async () => {
      const p = await pool();
      const c = await contact();
      const issues = async (body: Record<string, unknown>) => {
        const error = (await h.people.poolContacts.create(ctx, body).catch((e: unknown) => e)) as CrmError;
        expect(error.code).toBe('validation_failed');
        return [...new Set((error.details as { field: string }[]).map((i) => i.field))].sort();
      };
      expect(await issues({ pool_id: newId(), contact_id: c })).toEqual(['pool_id']);
      expect(await issues({ pool_id: p, contact_id: newId() })).toEqual(['contact_id']);
      expect(await issues({ pool_id: await pool({}, otherWs), contact_id: await contact({}, otherWs) })).toEqual(['contact_id', 'pool_id']);
      expect(await issues({ pool_id: 'x', contact_id: null })).toEqual(['contact_id', 'pool_id']);
      expect(await issues({})).toEqual(['contact_id', 'pool_id']);
      expect(await countOf(p)).toBe(0);
    });

    test('memberships are never updated', async () => {
      const m = await h.people.poolContacts.create(ctx, { pool_id: await pool(), contact_id: await contact() });
      await expect(h.people.poolContacts.update(ctx, m.id as string, { svc_uid: 'x' })).rejects.toMatchObject({ code: 'method_not_allowed' });
    });

    test('list by pool_id, contact_id and added_by, newest first, with since/until on added_at; no q', async () => {
      const p = await pool();
      const c1 = await contact();
      const c2 = await contact();
      const first = await h.people.poolContacts.create(ctx, { pool_id: p, contact_id: c1 });
      const second = await h.people.poolContacts.create({ workspaceId: ws }, { pool_id: p, contact_id: c2 });
      const elsewhere = await h.people.poolContacts.create(ctx, { pool_id: await pool(), contact_id: c1 });
      const list = async (params: Record<string, string>) =>
        (await h.people.poolContacts.list(ws, parseListQuery(poolContacts, params))).data.map((m) => m.id);
      expect(await list({ pool_id: p })).toEqual([second.id, first.id]);
      expect(await list({ pool_id: p, sort: 'added_at' })).toEqual([first.id, second.id]);
      expect(await list({ contact_id: c1 })).toEqual([elsewhere.id, first.id]);
      expect(await list({ pool_id: p, added_by: user })).toEqual([first.id]);
      expect(await list({ pool_id: p, since: second.added_at as string })).toEqual([second.id]);
      expect(await list({ pool_id: p, until: second.added_at as string })).toEqual(
        first.added_at === second.added_at ? [] : [first.id],
      );
      expect(() => parseListQuery(poolContacts, { q: 'x' })).toThrow(/unknown query parameter q/);
      expect(() => parseListQuery(poolContacts, { sort: 'created_at' })).toThrow(/unknown key/);
      const page = await h.people.poolContacts.list(ws, parseListQuery(poolContacts, { pool_id: p, limit: '1' }));
      const next = await h.people.poolContacts.list(ws, parseListQuery(poolContacts, { pool_id: p, limit: '1', cursor: page.nextCursor! }));
      expect([...page.data, ...next.data].map((m) => m.id)).toEqual([second.id, first.id]);
      expect(next.hasMore).toBe(false);
    });

    test('delete removes the membership, moves the count and publishes pool_contact.deleted', async () => {
      const p = await pool();
      const c = await contact();
      const m = await h.people.poolContacts.create(ctx, { pool_id: p, contact_id: c, svc_uid: `m-${newId()}` });
      await h.people.poolContacts.delete(ctx, m.id as string);
      expect(await countOf(p)).toBe(0);
      await expect(h.people.poolContacts.delete(ctx, m.id as string)).rejects.toMatchObject({ code: 'not_found' });
      await expect(h.people.poolContacts.delete({ workspaceId: otherWs }, m.id as string)).rejects.toMatchObject({ code: 'not_found' });
      await expectEventually(() =>
        expect(h.eventsOf(PeopleEvents.PoolContactDeleted).find((e) => e.data.id === m.id)?.data).toMatchObject({
          pool_id: p,
          contact_id: c,
          svc_uid: m.svc_uid,
          cause: 'removed',
        }),
      );
    });
  });

  describe('bulk members', () => {
    test('add reports added, already members and unknown ids, in one transaction and one event', async () => {
      const p = await pool();
      const [a, b, c] = [await contact(), await contact(), await contact()];
      const foreign = await contact({}, otherWs);
      await h.people.members.add(ctx, p, [a]);
      const unknown = newId();
      const result = await h.people.members.add(ctx, p, [b, a, unknown, c.toUpperCase(), foreign, b]);
      expect(result).toEqual({ added: [b, c], already_members: [a], not_found: [unknown, foreign], contacts_count: 3 });
      expect(await countOf(p)).toBe(3);
      expect(await actualCount(p)).toBe(3);
      const members = await h.people.poolContacts.list(ws, parseListQuery(poolContacts, { pool_id: p }));
      expect(members.data.filter((m) => m.contact_id !== a).every((m) => m.added_by === user)).toBe(true);
      await expectEventually(() => {
        const events = h.eventsOf(PeopleEvents.PoolMembersAdded).filter((e) => e.data.id === p);
        expect(events.map((e) => e.data)).toEqual([
          { id: p, contact_ids: [a], added_by: user, contacts_count: 1 },
          { id: p, contact_ids: [b, c], added_by: user, contacts_count: 3 },
        ]);
      });
      const unchanged = await h.people.members.add(ctx, p, [a, b]);
      expect(unchanged).toEqual({ added: [], already_members: [a, b], not_found: [], contacts_count: 3 });
      expect(h.eventsOf(PeopleEvents.PoolContactCreated).filter((e) => e.data.pool_id === p)).toEqual([]);
    });

    test('remove reports removed, non-members and unknown ids', async () => {
      const p = await pool();
      const [a, b, outsider] = [await contact(), await contact(), await contact()];
      await h.people.members.add(ctx, p, [a, b]);
      const unknown = newId();
      expect(await h.people.members.remove(ctx, p, [a, outsider, unknown, a])).toEqual({
        removed: [a],
        not_members: [outsider],
        not_found: [unknown],
        contacts_count: 1,
      });
      expect(await actualCount(p)).toBe(1);
      await expectEventually(() =>
        expect(h.eventsOf(PeopleEvents.PoolMembersRemoved).find((e) => e.data.id === p)?.data).toEqual({
          id: p,
          contact_ids: [a],
          contacts_count: 1,
        }),
      );
      await expect(h.people.members.remove(ctx, newId(), [a])).rejects.toMatchObject({ code: 'not_found' });
    });

    test('500 ids is the limit; 501, none or a bad id is 422', async () => {
      const p = await pool();
      const ids = Array.from({ length: 500 }, () => newId());
      ids[0] = await contact();
      expect((await h.people.members.add(ctx, p, ids)).added).toEqual([ids[0]]);
      await expect(h.people.members.add(ctx, p, [...ids, newId()])).rejects.toMatchObject({
        code: 'validation_failed',
        details: [{ field: 'contact_ids', message: 'must hold 1 to 500 ids, got 501' }],
      });
      await expect(h.people.members.remove(ctx, p, [])).rejects.toMatchObject({ code: 'validation_failed' });
      await expect(h.people.members.add(ctx, p, [ids[0]!, 'nope'])).rejects.toMatchObject({
        code: 'validation_failed',
        details: [{ field: 'contact_ids[1]', message: 'must be a UUID' }],
      });
      expect(await countOf(p)).toBe(1);
    });
  });

  test('deleting a contact removes its memberships everywhere and fixes every count', async () => {
    const [p1, p2] = [await pool(), await pool()];
    const [gone, stays] = [await contact(), await contact()];
    await h.people.members.add(ctx, p1, [gone, stays]);
    const m2 = await h.people.poolContacts.create(ctx, { pool_id: p2, contact_id: gone });
    await h.people.contacts.delete(ctx, gone);
    expect([await countOf(p1), await countOf(p2)]).toEqual([1, 0]);
    expect(await h.count('pool_contacts', 'contact_id = $1', [gone])).toBe(0);
    await expectEventually(() =>
      expect(
        h
          .eventsOf(PeopleEvents.PoolContactDeleted)
          .filter((e) => e.data.contact_id === gone)
          .map((e) => [e.data.pool_id, e.data.cause])
          .sort(),
      ).toEqual([
        [p1, 'contact_deleted'],
        [p2, 'contact_deleted'],
      ].sort()),
    );
    expect(h.eventsOf(PeopleEvents.PoolContactDeleted).some((e) => e.data.id === m2.id)).toBe(true);
  });

  test('contacts_count stays exact under concurrent membership changes and contact deletions', async () => {
    const poolIds = [await pool(), await pool(), await pool()];
    const contactIds: string[] = [];
    for (let i = 0; i < 40; i++) contactIds.push(await contact());
    const slice = (from: number, to: number) => contactIds.slice(from, to);
    const work: Promise<unknown>[] = [];
    for (const p of poolIds) {
      // Overlapping bulk adds and removes, single creates (some duplicates) and single deletes.
      work.push(h.people.members.add(ctx, p, slice(0, 20)));
      work.push(h.people.members.add(ctx, p, slice(10, 30).reverse()));
      work.push(h.people.members.remove(ctx, p, slice(5, 15)));
      work.push(h.people.members.add(ctx, p, slice(25, 40)));
      for (const c of slice(15, 25)) {
        work.push(h.people.poolContacts.create(ctx, { pool_id: p, contact_id: c }).catch((e: CrmError) => expect(e.code).toBe('conflict')));
      }
    }
    for (const c of slice(30, 36)) work.push(h.people.contacts.delete(ctx, c));
    await Promise.all(work);
    for (const p of poolIds) {
      const deleting = (await h.people.poolContacts.list(ws, parseListQuery(poolContacts, { pool_id: p, limit: '100' }))).data;
      for (const m of deleting.slice(0, 3)) await h.people.poolContacts.delete(ctx, m.id as string);
    }
    for (const p of poolIds) {
      const actual = await actualCount(p);
      expect(await countOf(p)).toBe(actual);
      expect(actual).toBeGreaterThan(0);
      expect(await h.count('pool_contacts', 'pool_id = $1 AND contact_id = ANY($2::uuid[])', [p, slice(30, 36)])).toBe(0);
    }
  });
});
