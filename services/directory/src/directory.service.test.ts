import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { integrations, users } from '@crm/directory-contract';
import { CrmError, type RawListParams, isUuid, parseListQuery } from '@crm/kit';
import { generateKey, isWellFormedKey } from './api-key';
import { COLLECTIONS, type ApiKeyDoc } from './directory.schema';
import { LAST_USED_RESOLUTION_MS, createDirectoryService, type DirectoryService } from './directory.service';
import type { DocumentCollection, DocumentStore } from './store/document-store';
import { createEmbeddedStore } from './store/embedded-store';

const T0 = new Date('2026-05-15T10:00:00.000Z');
const secretsKey = randomBytes(32);
const cursorSecret = randomBytes(32);
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const OTHER_UUID = '0196a7b4-3c2d-7e5f-8a9b-0c1d2e3f4a5b';

/** A store that counts calls per collection and method, to prove what an operation did not do. */
function countingStore(inner: DocumentStore) {
  const calls: string[] = [];
  const store: DocumentStore = {
    collection<T extends { _id: string }>(name: string): DocumentCollection<T> {
      const coll = inner.collection<T>(name);
      const counted = {} as DocumentCollection<T>;
      for (const method of ['insertOne', 'findOne', 'find', 'updateOne', 'deleteOne'] as const) {
        (counted as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
          calls.push(`${name}.${method}`);
          return (coll[method] as (...a: unknown[]) => unknown)(...args);
        };
      }
      return counted;
    },
    ensureIndexes: (specs) => inner.ensureIndexes(specs),
    close: () => inner.close(),
  };
  return { store, calls };
}

async function expectCrmError(promise: Promise<unknown>, code: CrmError['code']): Promise<CrmError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CrmError);
  expect((err as CrmError).code).toBe(code);
  return err as CrmError;
}

describe('directory service', () => {
  let raw: DocumentStore;
  let calls: string[];
  let clock: Date;
  let directory: DirectoryService;

  beforeEach(async () => {
    raw = await createEmbeddedStore();
    const counting = countingStore(raw);
    calls = counting.calls;
    clock = T0;
    directory = createDirectoryService({ store: counting.store, secretsKey, keyPepper: 'test-pepper', now: () => clock, cursorSecret });
  });

  afterEach(async () => {
    await raw.close();
  });

  const advance = (ms: number) => {
    clock = new Date(clock.getTime() + ms);
  };

  describe('workspaces', () => {
    it('creates a workspace with a UUIDv7 id and a millisecond UTC timestamp, and reads it back', async () => {
      const ws = await directory.createWorkspace({ name: '  Acme  ' });
      expect(ws).toEqual({ id: expect.any(String), name: 'Acme', created_at: '2026-05-15T10:00:00.000Z' });
      expect(isUuid(ws.id)).toBe(true);
      expect(ws.id[14]).toBe('7');
      expect(await directory.getWorkspace(ws.id)).toEqual(ws);
    });

    it('answers not_found for an unknown or malformed id', async () => {
      await expectCrmError(directory.getWorkspace(OTHER_UUID), 'not_found');
      await expectCrmError(directory.getWorkspace('not-a-uuid'), 'not_found');
    });

    it('refuses a missing or blank name', async () => {
      const err = await expectCrmError(directory.createWorkspace({ name: '   ' }), 'validation_failed');
      expect(err.details).toEqual([{ field: 'name', message: 'is required' }]);
      await expectCrmError(directory.createWorkspace({} as never), 'validation_failed');
    });
  });

  describe('users', () => {
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
  });

  describe('API keys', () => {
    let workspaceId: string;
    beforeEach(async () => {
      workspaceId = (await directory.createWorkspace({ name: 'Acme' })).id;
    });

    it('issues a well-formed key once, with validated and de-duplicated scopes', async () => {
      const created = await directory.createApiKey({ workspace_id: workspaceId, scopes: ['contacts:read', 'flows:*', 'contacts:read'] });
      expect(created).toEqual({
        id: expect.any(String),
        key: expect.stringMatching(/^svc_live_/),
        scopes: ['contacts:read', 'flows:*'],
        workspace_id: workspaceId,
        env: 'live',
        created_at: '2026-05-15T10:00:00.000Z',
      });
      expect(isWellFormedKey(created.key)).toBe(true);
      const test = await directory.createApiKey({ workspace_id: workspaceId, scopes: ['*'], env: 'test' });
      expect(test.key).toMatch(/^svc_test_/);
    });

    it('stores only a hash and a display prefix, never the key', async () => {
      const { key, id } = await directory.createApiKey({ workspace_id: workspaceId, scopes: ['*'], name: 'CI' });
      const stored = await raw.collection(COLLECTIONS.apiKeys).findOne({ _id: id });
      expect(JSON.stringify(stored)).not.toContain(key);
      expect(JSON.stringify(stored)).not.toContain(key.slice(9, 30));
      expect(stored).toMatchObject({ hash: expect.stringMatching(/^[0-9a-f]{64}$/), prefix: key.slice(0, 13), name: 'CI' });
    });

    it('refuses legacy scopes, naming the replacement, together with other invalid fields', async () => {
      const err = await expectCrmError(
        directory.createApiKey({ workspace_id: workspaceId, scopes: ['lists:*', 'contacts:read'], env: 'Prod' }),
        'validation_failed',
      );
      expect(err.details).toEqual([
        { field: 'scopes[0]', message: expect.stringContaining('pools:*') },
        { field: 'env', message: expect.any(String) },
      ]);
      await expectCrmError(directory.createApiKey({ workspace_id: workspaceId, scopes: [] }), 'validation_failed');
      expect(await raw.collection(COLLECTIONS.apiKeys).find({})).toEqual([]);
    });

    it('requires the workspace, and the user in that workspace when one is named', async () => {
      await expectCrmError(directory.createApiKey({ workspace_id: OTHER_UUID, scopes: ['*'] }), 'not_found');
      const other = await directory.createWorkspace({ name: 'Other' });
      const stranger = await directory.createUser({ workspace_id: other.id, email: 's@x.io', full_name: 'S', role: 'member' });
      const err = await expectCrmError(
        directory.createApiKey({ workspace_id: workspaceId, scopes: ['*'], user_id: stranger.id }),
        'not_found',
      );
      expect(err.message).toBe('user not found');
    });

    it('authenticates a key to its workspace, scopes and user', async () => {
      const user = await directory.createUser({ workspace_id: workspaceId, email: 'u@x.io', full_name: 'U', role: 'owner' });
      const withUser = await directory.createApiKey({ workspace_id: workspaceId, scopes: ['tasks:read'], user_id: user.id });
      expect(await directory.authenticate(withUser.key)).toEqual({
        workspace_id: workspaceId,
        key_id: withUser.id,
        scopes: ['tasks:read'],
        user_id: user.id,
      });
      const workspaceKey = await directory.createApiKey({ workspace_id: workspaceId, scopes: ['*'] });
      expect((await directory.authenticate(workspaceKey.key)).user_id).toBeNull();
    });

    it('rejects a malformed key or a bad checksum without touching the store', async () => {
      const { key } = await directory.createApiKey({ workspace_id: workspaceId, scopes: ['*'] });
      calls.length = 0;
      const tampered = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
      for (const bad of ['', 'Bearer nonsense', tampered, key.toUpperCase(), 42 as never]) {
        const err = await expectCrmError(directory.authenticate(bad), 'unauthorized');
        expect(err.message).toBe('invalid API key');
      }
      expect(calls).toEqual([]);
    });

    it('rejects a well-formed key that was never issued, and one hashed with another pepper', async () => {
      await expectCrmError(directory.authenticate(generateKey()), 'unauthorized');
      const { key } = await directory.createApiKey({ workspace_id: workspaceId, scopes: ['*'] });
      const otherPepper = createDirectoryService({ store: raw, secretsKey, keyPepper: 'another-pepper', now: () => clock, cursorSecret });
      await expectCrmError(otherPepper.authenticate(key), 'unauthorized');
    });

    it('revokes a key for good, idempotently, keeping the first revocation time', async () => {
      const { id, key } = await directory.createApiKey({ workspace_id: workspaceId, scopes: ['*'] });
      await directory.authenticate(key);
      expect(await directory.revokeApiKey(id)).toEqual({ id, revoked: true });
      await expectCrmError(directory.authenticate(key), 'unauthorized');
      advance(5_000);
      expect(await directory.revokeApiKey(id)).toEqual({ id, revoked: true });
      expect(await raw.collection(COLLECTIONS.apiKeys).findOne({ _id: id })).toMatchObject({ revoked_at: T0.toISOString() });
      await expectCrmError(directory.revokeApiKey(OTHER_UUID), 'not_found');
    });

    it('records last_used_at at most once a minute', async () => {
      const { id, key } = await directory.createApiKey({ workspace_id: workspaceId, scopes: ['*'] });
      const lastUsed = async () => (await raw.collection<ApiKeyDoc>(COLLECTIONS.apiKeys).findOne({ _id: id }))?.last_used_at;
      expect(await lastUsed()).toBeNull();

      calls.length = 0;
      await directory.authenticate(key);
      expect(await lastUsed()).toBe('2026-05-15T10:00:00.000Z');
      advance(LAST_USED_RESOLUTION_MS - 1);
      await directory.authenticate(key);
      await directory.authenticate(key);
      expect(calls.filter((c) => c === 'api_keys.updateOne')).toHaveLength(1);
      expect(await lastUsed()).toBe('2026-05-15T10:00:00.000Z');

      advance(1);
      await directory.authenticate(key);
      expect(calls.filter((c) => c === 'api_keys.updateOne')).toHaveLength(2);
      expect(await lastUsed()).toBe('2026-05-15T10:01:00.000Z');
    });
  });

  describe('integrations', () => {
    let workspaceId: string;
    beforeEach(async () => {
      workspaceId = (await directory.createWorkspace({ name: 'Acme' })).id;
    });

    const smtp = () => ({ workspace_id: workspaceId, type: 'smtp', name: 'Outbound mail', secret: ' s3cr3t-p4ss ', config: { host: 'smtp.acme.test' } });

    it('creates a connected, enabled integration whose record carries no secret', async () => {
      const integration = await directory.createIntegration(smtp());
      expect(integration).toEqual({
        id: expect.any(String),
        workspace_id: workspaceId,
        type: 'smtp',
        name: 'Outbound mail',
        status: 'connected',
        enabled: true,
        config: { host: 'smtp.acme.test' },
        svc_uid: null,
        created_at: '2026-05-15T10:00:00.000Z',
        updated_at: '2026-05-15T10:00:00.000Z',
      });
      expect(await directory.getIntegration(workspaceId, integration.id)).toEqual(integration);
    });

    it('encrypts the secret at rest and gives it back verbatim only through readIntegrationSecret', async () => {
      const { id } = await directory.createIntegration(smtp());
      const stored = await raw.collection(COLLECTIONS.integrations).findOne({ _id: id });
      expect(JSON.stringify(stored)).not.toContain('s3cr3t');
      expect(stored).toMatchObject({ secret: { v: 1, iv: expect.any(String), tag: expect.any(String), ct: expect.any(String) } });
      expect(await directory.readIntegrationSecret(workspaceId, id)).toBe(' s3cr3t-p4ss ');
    });

    it('cannot decrypt with another secrets key', async () => {
      const { id } = await directory.createIntegration(smtp());
      const wrongKey = createDirectoryService({ store: raw, secretsKey: randomBytes(32), cursorSecret });
      const err = await wrongKey.readIntegrationSecret(workspaceId, id).then(
        () => undefined,
        (e: unknown) => e,
      );
      // Not a CrmError: the client sees `internal`, and nothing about the cause.
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(CrmError);
    });

    it('lists integrations by type, status and enabled, never with a secret', async () => {
      const mail = await directory.createIntegration(smtp());
      const crm = await directory.createIntegration({ workspace_id: workspaceId, type: 'hubspot', name: 'CRM sync', secret: 'tok-123' });
      const list = async (raw: RawListParams) => directory.listIntegrations(workspaceId, parseListQuery(integrations, raw));
      const all = await list({ sort: 'type' });
      expect(all.data.map((i) => i.id)).toEqual([crm.id, mail.id]);
      expect(JSON.stringify(all)).not.toMatch(/s3cr3t|tok-123|secret/);
      expect((await list({ type: 'smtp', enabled: 'true', status: 'connected' })).data).toEqual([{ ...mail }]);
      expect((await list({ status: 'error' })).data).toEqual([]);
      await expectCrmError(list({ enabled: 'yes' }), 'invalid_request');
    });

    it('scopes reads to the workspace', async () => {
      const { id } = await directory.createIntegration(smtp());
      const other = await directory.createWorkspace({ name: 'Other' });
      await expectCrmError(directory.getIntegration(other.id, id), 'not_found');
      await expectCrmError(directory.readIntegrationSecret(other.id, id), 'not_found');
    });

    it('keeps svc_uid unique per workspace', async () => {
      await directory.createIntegration({ ...smtp(), svc_uid: 'ext-9' });
      await expectCrmError(directory.createIntegration({ ...smtp(), svc_uid: 'ext-9' }), 'conflict');
      const other = await directory.createWorkspace({ name: 'Other' });
      await expect(directory.createIntegration({ ...smtp(), workspace_id: other.id, svc_uid: 'ext-9' })).resolves.toBeDefined();
    });

    it('validates its fields', async () => {
      const err = await expectCrmError(
        directory.createIntegration({ workspace_id: workspaceId, type: 'Gmail OAuth', name: ' ', secret: '' }),
        'validation_failed',
      );
      expect((err.details as { field: string }[]).map((i) => i.field)).toEqual(['type', 'name', 'secret']);
      await expectCrmError(directory.createIntegration({ ...smtp(), workspace_id: OTHER_UUID }), 'not_found');
    });
  });

  it('creates its unique indexes itself, so a process that did not migrate still refuses duplicates', async () => {
    const fresh = await createEmbeddedStore();
    const service = createDirectoryService({ store: fresh, secretsKey, cursorSecret });
    const ws = await service.createWorkspace({ name: 'Acme' });
    const user = { workspace_id: ws.id, email: 'a@x.io', full_name: 'A', role: 'member' };
    await service.createUser(user);
    await expectCrmError(service.createUser(user), 'conflict');
    await fresh.close();
  });

  it('refuses a secrets key that is not 32 bytes', () => {
    expect(() => createDirectoryService({ store: raw, secretsKey: randomBytes(16), cursorSecret })).toThrow(/32 bytes/);
  });
});

describe('directory service over a persisted embedded store', () => {
  it('authenticates a key and decrypts a secret after a restart', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'crm-directory-'));
    try {
      const first = await createEmbeddedStore({ dataDir });
      const before = createDirectoryService({ store: first, secretsKey, keyPepper: 'p', cursorSecret });
      const ws = await before.createWorkspace({ name: 'Acme' });
      const { key, id: keyId } = await before.createApiKey({ workspace_id: ws.id, scopes: ['contacts:*'] });
      const integration = await before.createIntegration({ workspace_id: ws.id, type: 'smtp', name: 'Mail', secret: 'pw', config: { host: 'smtp.acme.test' } });
      await first.close();

      const second = await createEmbeddedStore({ dataDir });
      const after = createDirectoryService({ store: second, secretsKey, keyPepper: 'p', cursorSecret });
      expect(await after.authenticate(key)).toMatchObject({ workspace_id: ws.id, key_id: keyId, scopes: ['contacts:*'] });
      expect(await after.readIntegrationSecret(ws.id, integration.id)).toBe('pw');
      await second.close();
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
