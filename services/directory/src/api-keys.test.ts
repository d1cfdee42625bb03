import { generateKey, isWellFormedKey } from './api-key';
import { LAST_USED_RESOLUTION_MS } from './api-keys';
import { COLLECTIONS, type ApiKeyDoc } from './directory.schema';
import { createDirectoryService, type DirectoryService } from './directory.service';
import type { DocumentStore } from './store/document-store';
import { OTHER_UUID, T0, cursorSecret, expectCrmError, openTestDirectory, secretsKey } from './testing/test-directory';

describe('API keys', () => {
  let raw: DocumentStore;
  let calls: string[];
  let clock: () => Date;
  let advance: (ms: number) => void;
  let directory: DirectoryService;

  beforeEach(async () => {
    ({ raw, calls, clock, advance, directory } = await openTestDirectory());
  });

  afterEach(async () => {
    await raw.close();
  });

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
    const otherPepper = createDirectoryService({ store: raw, secretsKey, keyPepper: 'another-pepper', now: clock, cursorSecret });
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

  it("lists a workspace's keys for the operator, active and revoked, newest first, never a key or its hash", async () => {
    const first = await directory.createApiKey({ workspace_id: workspaceId, scopes: ['contacts:read'], name: 'reader' });
    advance(1000);
    const second = await directory.createApiKey({ workspace_id: workspaceId, scopes: ['*'], env: 'test' });
    const other = await directory.createWorkspace({ name: 'Other' });
    await directory.createApiKey({ workspace_id: other.id, scopes: ['*'] });
    advance(1000);
    await directory.revokeApiKey(first.id);

    const listed = await directory.listApiKeys(workspaceId);
    expect(listed).toEqual([
      expect.objectContaining({ id: second.id, name: null, prefix: second.key.slice(0, 13), scopes: ['*'], env: 'test', revoked_at: null }),
      {
        id: first.id,
        workspace_id: workspaceId,
        name: 'reader',
        prefix: first.key.slice(0, 13),
        scopes: ['contacts:read'],
        env: 'live',
        user_id: null,
        created_by_name: '',
        created_at: first.created_at,
        last_used_at: null,
        revoked_at: '2026-05-15T10:00:02.000Z',
      },
    ]);
    const text = JSON.stringify(listed);
    expect(text).not.toContain(first.key);
    expect(text).not.toContain(second.key);
    expect(text).not.toMatch(/"hash"|[0-9a-f]{64}/);
  });

  it('answers not_found for the keys of an unknown or malformed workspace id', async () => {
    await expectCrmError(directory.listApiKeys(OTHER_UUID), 'not_found');
    await expectCrmError(directory.listApiKeys('nope'), 'not_found');
  });
});
