import { users } from '@crm/directory-contract';
import { type RawListParams, parseListQuery } from '@crm/kit';
import { COLLECTIONS, type ApiKeyDoc } from './directory.schema';
import { type DirectoryService, createDirectoryService } from './directory.service';
import type { DocumentStore } from './store/document-store';
import { OTHER_UUID, cursorSecret, expectCrmError, openTestDirectory, secretsKey } from './testing/test-directory';

describe('users', () => {
  let raw: DocumentStore;
  let directory: DirectoryService;
  let clock: () => Date;

  beforeEach(async () => {
    ({ raw, directory, clock } = await openTestDirectory());
  });

  afterEach(async () => {
    await raw.close();
  });

  let workspaceId: string;
  beforeEach(async () => {
    workspaceId = (await directory.createWorkspace({ name: 'Acme' })).id;
  });

  const alice = () => ({ workspace_id: workspaceId, email: 'Alice@Example.com', full_name: 'Alice Martin', role: 'admin' });

  it('creates an active user and returns exactly the public record', async () => {
    const user = await directory.createUser(alice());
    expect(user).toEqual({
      id: expect.any(String),
      workspace_id: workspaceId,
      email: 'Alice@Example.com',
      full_name: 'Alice Martin',
      role: 'admin',
      is_active: true,
      svc_uid: null,
      created_at: '2026-05-15T10:00:00.000Z',
      updated_at: '2026-05-15T10:00:00.000Z',
    });
    expect(await directory.getUser(workspaceId, user.id)).toEqual(user);
  });

  it('refuses a second user with the same email in any letter case, within one workspace only', async () => {
    await directory.createUser(alice());
    const err = await expectCrmError(directory.createUser({ ...alice(), email: 'alice@EXAMPLE.com' }), 'conflict');
    expect(err.message).toMatch(/email/);
    const other = await directory.createWorkspace({ name: 'Other' });
    await expect(directory.createUser({ ...alice(), workspace_id: other.id })).resolves.toMatchObject({ email: 'Alice@Example.com' });
  });

  it('keeps svc_uid unique per workspace when set, and allows many users without one', async () => {
    await directory.createUser({ ...alice(), svc_uid: 'ext-1' });
    await directory.createUser({ ...alice(), email: 'b@example.com', svc_uid: null });
    await directory.createUser({ ...alice(), email: 'c@example.com' });
    const err = await expectCrmError(directory.createUser({ ...alice(), email: 'd@example.com', svc_uid: 'ext-1' }), 'conflict');
    expect(err.message).toMatch(/svc_uid/);
  });

  it('answers not_found for an unknown workspace', async () => {
    await expectCrmError(directory.createUser({ ...alice(), workspace_id: OTHER_UUID }), 'not_found');
    expect(await raw.collection(COLLECTIONS.users).find({})).toEqual([]);
  });

  it('reports every invalid field at once', async () => {
    const err = await expectCrmError(
      directory.createUser({ workspace_id: workspaceId, email: 'not-an-email', full_name: '', role: 'superuser', svc_uid: '' }),
      'validation_failed',
    );
    expect((err.details as { field: string }[]).map((i) => i.field)).toEqual(['email', 'full_name', 'role', 'svc_uid']);
  });

  it('lists the workspace\'s users with typed filters, search and signed cursors', async () => {
    const created = [];
    for (const [i, role] of (['owner', 'admin', 'member', 'member', 'admin'] as const).entries()) {
      created.push(await directory.createUser({ workspace_id: workspaceId, email: `u${i}@acme.test`, full_name: `User ${'EDCBA'[i]}`, role }));
    }
    const other = await directory.createWorkspace({ name: 'Other' });
    await directory.createUser({ workspace_id: other.id, email: 'x@other.test', full_name: 'User Z', role: 'member' });
    const list = async (raw: RawListParams) => directory.listUsers(workspaceId, parseListQuery(users, raw));

    const byName = await list({ sort: 'full_name', limit: '3' });
    expect(byName.data.map((u) => u.full_name)).toEqual(['User A', 'User B', 'User C']);
    expect(byName.data[0]).toEqual({ ...created[4] });
    const rest = await list({ sort: 'full_name', limit: '3', cursor: byName.nextCursor! });
    expect(rest.data.map((u) => u.full_name)).toEqual(['User D', 'User E']);
    expect(rest.hasMore).toBe(false);

    expect((await list({ role: 'admin' })).data.map((u) => u.email).sort()).toEqual(['u1@acme.test', 'u4@acme.test']);
    expect((await list({ is_active: 'true' })).data).toHaveLength(5);
    expect((await list({ is_active: 'false' })).data).toHaveLength(0);
    expect((await list({ q: 'U3@ACME' })).data.map((u) => u.id)).toEqual([created[3]!.id]);
    await expectCrmError(list({ role: 'root' }), 'invalid_request');
    await expectCrmError(directory.listUsers(other.id, parseListQuery(users, { sort: 'full_name', limit: '3', cursor: byName.nextCursor! })), 'invalid_request');
  });

  it('hides users of another workspace', async () => {
    const user = await directory.createUser(alice());
    const other = await directory.createWorkspace({ name: 'Other' });
    await expectCrmError(directory.getUser(other.id, user.id), 'not_found');
  });

  it('refuses ids that are not strings instead of passing them to the query', async () => {
    await directory.createUser(alice());
    await expectCrmError(directory.getUser(workspaceId, { $ne: null } as never), 'validation_failed');
    await expectCrmError(directory.getUser({ $exists: true } as never, OTHER_UUID), 'validation_failed');
  });

  describe('deactivation', () => {
    const PASSWORD = 'correct horse battery staple';

    async function withPassword(email: string, role = 'member') {
      const user = await directory.createUser({ workspace_id: workspaceId, email, full_name: email, role });
      const { token } = await directory.issuePasswordToken({ workspace_id: workspaceId, user_id: user.id });
      await directory.setPassword({ password: PASSWORD, token });
      return user;
    }

    it('ends the sessions and revokes the keys of the user, idempotently, and no one else\'s', async () => {
      const alice = await withPassword('alice@acme.test');
      const bob = await withPassword('bob@acme.test');
      const session = (await directory.signIn({ email: 'alice@acme.test', password: PASSWORD })).session_id!;
      const bobSession = (await directory.signIn({ email: 'bob@acme.test', password: PASSWORD })).session_id!;
      const fromPage = await directory.createSessionApiKey({ session_id: session, name: 'Mine', env: 'live', scopes: ['*'] });
      const fromCli = await directory.createApiKey({ workspace_id: workspaceId, scopes: ['*'], user_id: alice.id });
      const workspaceKey = await directory.createApiKey({ workspace_id: workspaceId, scopes: ['*'] });
      const bobKey = await directory.createApiKey({ workspace_id: workspaceId, scopes: ['*'], user_id: bob.id });

      const deactivated = await directory.deactivateUser(workspaceId, alice.id);
      expect(deactivated).toEqual({ ...alice, is_active: false, updated_at: expect.any(String) });
      expect(await directory.getUser(workspaceId, alice.id)).toEqual(deactivated);
      for (const key of [fromPage.key, fromCli.key]) await expectCrmError(directory.authenticate(key), 'unauthorized');
      await expectCrmError(directory.getSession(session), 'unauthorized');

      await expect(directory.authenticate(workspaceKey.key)).resolves.toBeDefined();
      await expect(directory.authenticate(bobKey.key)).resolves.toBeDefined();
      await expect(directory.getSession(bobSession)).resolves.toBeDefined();

      expect(await directory.deactivateUser(workspaceId, alice.id)).toEqual(deactivated);
    });

    it('gives a deactivated user no new key', async () => {
      const alice = await directory.createUser({ workspace_id: workspaceId, email: 'alice@acme.test', full_name: 'A', role: 'admin' });
      await directory.deactivateUser(workspaceId, alice.id);
      const err = await expectCrmError(directory.createApiKey({ workspace_id: workspaceId, scopes: ['*'], user_id: alice.id }), 'validation_failed');
      expect(err.details).toEqual([{ field: 'user_id', message: 'names a deactivated user' }]);
      expect(await raw.collection(COLLECTIONS.apiKeys).find({})).toEqual([]);
    });

    it('revokes a key whose creation checked the user just before the deactivation', async () => {
      const alice = await directory.createUser({ workspace_id: workspaceId, email: 'alice@acme.test', full_name: 'A', role: 'admin' });
      // A store on which the deactivation runs, whole, between the creation's check and its insert.
      const racing: DocumentStore = {
        ensureIndexes: (specs) => raw.ensureIndexes(specs),
        close: () => raw.close(),
        collection: <T extends { _id: string }>(name: string) => {
          const inner = raw.collection<T>(name);
          if (name !== COLLECTIONS.apiKeys) return inner;
          return {
            ...inner,
            insertOne: async (doc: T) => {
              await directory.deactivateUser(workspaceId, alice.id);
              return inner.insertOne(doc);
            },
          };
        },
      };
      const creating = createDirectoryService({ store: racing, secretsKey, keyPepper: 'test-pepper', cursorSecret, now: clock });
      const err = await expectCrmError(creating.createApiKey({ workspace_id: workspaceId, scopes: ['*'], user_id: alice.id }), 'validation_failed');
      expect(err.details).toEqual([{ field: 'user_id', message: 'names a deactivated user' }]);
      const [stored] = await raw.collection<ApiKeyDoc>(COLLECTIONS.apiKeys).find({});
      expect(stored?.revoked_at).not.toBeNull();
    });

    it('answers not_found for a user of another workspace', async () => {
      const alice = await directory.createUser(alice_());
      const other = await directory.createWorkspace({ name: 'Other' });
      await expectCrmError(directory.deactivateUser(other.id, alice.id), 'not_found');
      expect((await directory.getUser(workspaceId, alice.id)).is_active).toBe(true);
    });

    const alice_ = () => ({ workspace_id: workspaceId, email: 'alice@acme.test', full_name: 'Alice', role: 'member' });
  });
});
