import { DirectoryErrorCode } from '@crm/directory-contract';
import { isWellFormedKey } from './api-key';
import { COLLECTIONS, type ApiKeyDoc } from './directory.schema';
import type { DirectoryService } from './directory.service';
import type { DocumentStore } from './store/document-store';
import { T0, expectCrmError, openTestDirectory } from './testing/test-directory';

/** The settings page's keys: what each role sees and revokes, through a session. */
describe('API keys of a session', () => {
  let raw: DocumentStore;
  let directory: DirectoryService;
  let advance: (ms: number) => void;
  let workspaceId: string;
  const sessions: Record<'owner' | 'admin' | 'member' | 'other_member' | 'stranger', string> = {} as never;
  const users: Record<string, string> = {};

  async function signedIn(workspace: string, email: string, role: string, fullName: string): Promise<string> {
    const user = await directory.createUser({ workspace_id: workspace, email, full_name: fullName, role });
    users[email] = user.id;
    const { token } = await directory.issuePasswordToken({ workspace_id: workspace, user_id: user.id });
    await directory.setPassword({ password: `${email} long passphrase`, token });
    return (await directory.signIn({ email, password: `${email} long passphrase` })).session_id!;
  }

  beforeEach(async () => {
    ({ raw, directory, advance } = await openTestDirectory());
    workspaceId = (await directory.createWorkspace({ name: 'Acme' })).id;
    const otherWorkspace = (await directory.createWorkspace({ name: 'Other' })).id;
    sessions.owner = await signedIn(workspaceId, 'owner@acme.test', 'owner', 'Olive Owner');
    sessions.admin = await signedIn(workspaceId, 'admin@acme.test', 'admin', 'Adam Admin');
    sessions.member = await signedIn(workspaceId, 'member@acme.test', 'member', 'Mia Member');
    sessions.other_member = await signedIn(workspaceId, 'other@acme.test', 'member', 'Otto Other');
    sessions.stranger = await signedIn(otherWorkspace, 'owner@other.test', 'owner', 'Stan Stranger');
  });

  afterEach(async () => {
    await raw.close();
  });

  const create = (session: string, name: string, env = 'live', scopes = ['contacts:read']) =>
    directory.createSessionApiKey({ session_id: session, name, env, scopes });
  const listed = async (session: string) => (await directory.listSessionApiKeys(session)).map((key) => key.name);

  it('creates a key that acts for the signed-in user and works at once', async () => {
    const created = await create(sessions.member, 'CI', 'test', ['contacts:*', 'tasks:read', 'contacts:*']);
    expect(created).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^svc_test_/),
      scopes: ['contacts:*', 'tasks:read'],
      workspace_id: workspaceId,
      env: 'test',
      created_at: T0.toISOString(),
    });
    expect(isWellFormedKey(created.key)).toBe(true);
    const [listing] = await directory.listSessionApiKeys(sessions.member);
    expect(listing).toEqual({
      id: created.id,
      workspace_id: workspaceId,
      name: 'CI',
      prefix: created.key.slice(0, 13),
      scopes: ['contacts:*', 'tasks:read'],
      env: 'test',
      user_id: users['member@acme.test'],
      created_by_name: 'Mia Member',
      created_at: T0.toISOString(),
      last_used_at: null,
    });
    expect(JSON.stringify(listing)).not.toContain(created.key);
    expect(await directory.authenticate(created.key)).toEqual({
      workspace_id: workspaceId,
      key_id: created.id,
      scopes: ['contacts:*', 'tasks:read'],
      user_id: users['member@acme.test'],
    });
  });

  it('wants a name, an environment of live or test, and valid scopes', async () => {
    const err = await expectCrmError(create(sessions.owner, ' ', 'prod', ['lists:*']), 'validation_failed');
    expect(err.details).toEqual([
      { field: 'name', message: 'is required' },
      { field: 'env', message: 'must be one of live, test' },
      { field: 'scopes[0]', message: expect.stringContaining('pools:*') },
    ]);
    await expectCrmError(create(sessions.owner, 'x'.repeat(101)), 'validation_failed');
    await expectCrmError(create(sessions.owner, 'No scopes', 'live', []), 'validation_failed');
    expect(await raw.collection(COLLECTIONS.apiKeys).find({})).toEqual([]);
  });

  it('shows owners and admins every active key of their workspace, newest first, members their own', async () => {
    const cli = await directory.createApiKey({ workspace_id: workspaceId, scopes: ['*'], name: 'From the command line' });
    advance(1_000);
    await create(sessions.member, 'Member key');
    advance(1_000);
    await create(sessions.other_member, 'Other member key');
    advance(1_000);
    await create(sessions.admin, 'Admin key');
    advance(1_000);
    const revoked = await create(sessions.member, 'Revoked member key');
    await directory.revokeApiKey(revoked.id);
    await create(sessions.stranger, 'Stranger key');

    const everything = ['Admin key', 'Other member key', 'Member key', 'From the command line'];
    expect(await listed(sessions.owner)).toEqual(everything);
    expect(await listed(sessions.admin)).toEqual(everything);
    expect(await listed(sessions.member)).toEqual(['Member key']);
    expect(await listed(sessions.other_member)).toEqual(['Other member key']);
    expect(await listed(sessions.stranger)).toEqual(['Stranger key']);
    const cliListing = (await directory.listSessionApiKeys(sessions.owner)).find((key) => key.id === cli.id);
    expect(cliListing).toMatchObject({ user_id: null, created_by_name: '' });
  });

  it('lets a member revoke their own keys only, and an owner or admin any of the workspace', async () => {
    const mine = await create(sessions.member, 'Mine');
    const theirs = await create(sessions.other_member, 'Theirs');
    const adminKey = await create(sessions.admin, 'Admin key');

    const err = await expectCrmError(directory.revokeSessionApiKey(sessions.member, theirs.id), 'not_found');
    expect(err.message).toBe('API key not found');
    await expectCrmError(directory.revokeSessionApiKey(sessions.member, adminKey.id), 'not_found');
    await expect(directory.authenticate(theirs.key)).resolves.toBeDefined();

    expect(await directory.revokeSessionApiKey(sessions.member, mine.id)).toEqual({ id: mine.id, revoked: true });
    await expectCrmError(directory.authenticate(mine.key), 'unauthorized');
    expect(await directory.revokeSessionApiKey(sessions.admin, theirs.id)).toEqual({ id: theirs.id, revoked: true });
    expect(await directory.revokeSessionApiKey(sessions.owner, adminKey.id)).toEqual({ id: adminKey.id, revoked: true });
    // Idempotent, as the command line's revocation is.
    expect(await directory.revokeSessionApiKey(sessions.owner, adminKey.id)).toEqual({ id: adminKey.id, revoked: true });
    expect(await listed(sessions.owner)).toEqual([]);
  });

  it("never shows or revokes another workspace's key: not found, even to its owner", async () => {
    const theirs = await create(sessions.stranger, 'Stranger key');
    const ours = await create(sessions.owner, 'Our key');
    await expectCrmError(directory.revokeSessionApiKey(sessions.owner, theirs.id), 'not_found');
    await expectCrmError(directory.revokeSessionApiKey(sessions.stranger, ours.id), 'not_found');
    await expectCrmError(directory.revokeSessionApiKey(sessions.owner, 'not-an-id'), 'not_found');
    expect(await listed(sessions.owner)).toEqual(['Our key']);
    expect(await listed(sessions.stranger)).toEqual(['Stranger key']);
    await expect(directory.authenticate(theirs.key)).resolves.toBeDefined();
    await expect(directory.authenticate(ours.key)).resolves.toBeDefined();
  });

  it('shows last use to the minute', async () => {
    const { key } = await create(sessions.member, 'Used');
    advance(42_123);
    await directory.authenticate(key);
    const stored = await raw.collection<ApiKeyDoc>(COLLECTIONS.apiKeys).findOne({ name: 'Used' });
    expect(stored?.last_used_at).toBe('2026-05-15T10:00:42.123Z');
    expect((await directory.listSessionApiKeys(sessions.member))[0]?.last_used_at).toBe('2026-05-15T10:00:00.000Z');
  });

  it('does nothing for a session that has ended', async () => {
    const created = await create(sessions.member, 'Mine');
    await directory.endSession(sessions.member);
    for (const call of [
      directory.listSessionApiKeys(sessions.member),
      create(sessions.member, 'Another'),
      directory.revokeSessionApiKey(sessions.member, created.id),
    ]) {
      await expectCrmError(call, 'unauthorized', DirectoryErrorCode.InvalidSession);
    }
    await expect(directory.authenticate(created.key)).resolves.toBeDefined();
  });
});
