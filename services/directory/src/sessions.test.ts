import { DirectoryErrorCode } from '@crm/directory-contract';
import { COLLECTIONS, type SessionDoc } from './directory.schema';
import { createDirectoryService, type DirectoryService } from './directory.service';
import { hashOpaqueSecret } from './password';
import { SESSION_IDLE_MS, SESSION_LIFETIME_MS, SESSION_TOUCH_MS } from './sessions';
import type { DocumentStore } from './store/document-store';
import { T0, countingHasher, cursorSecret, expectCrmError, openTestDirectory, secretsKey } from './testing/test-directory';

const PASSWORD = 'correct horse battery staple';
const HOUR = 60 * 60 * 1000;
const { InvalidCredentials, InvalidSession } = DirectoryErrorCode;

describe('sessions', () => {
  let raw: DocumentStore;
  let directory: DirectoryService;
  let advance: (ms: number) => void;
  let clock: () => Date;
  let calls: string[];
  let hashes: { hash: number; verify: number };
  let workspaceId: string;
  let userId: string;

  beforeEach(async () => {
    ({ raw, directory, advance, clock, calls, hashes } = await openTestDirectory());
    workspaceId = (await directory.createWorkspace({ name: 'Acme' })).id;
    userId = (await directory.createUser({ workspace_id: workspaceId, email: 'Alice@Acme.test', full_name: 'Alice Martin', role: 'owner' })).id;
    await setPassword(workspaceId, userId, PASSWORD);
  });

  afterEach(async () => {
    await raw.close();
  });

  async function setPassword(workspace: string, user: string, password: string) {
    const { token } = await directory.issuePasswordToken({ workspace_id: workspace, user_id: user });
    await directory.setPassword({ password, token });
  }

  const signIn = (email = 'alice@acme.test', password = PASSWORD) => directory.signIn({ email, password });

  it('signs in to a session whose id is given once and stored only as a hash', async () => {
    const session = await signIn('  ALICE@acme.TEST ');
    expect(session).toEqual({
      session_id: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      user: expect.objectContaining({ id: userId, email: 'Alice@Acme.test', role: 'owner', is_active: true }),
      workspace: { id: workspaceId, name: 'Acme', created_at: T0.toISOString() },
      expires_at: new Date(T0.getTime() + SESSION_LIFETIME_MS).toISOString(),
      idle_expires_at: new Date(T0.getTime() + SESSION_IDLE_MS).toISOString(),
      csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const stored = await raw.collection<SessionDoc>(COLLECTIONS.sessions).find({});
    expect(stored).toEqual([expect.objectContaining({ _id: hashOpaqueSecret(session.session_id!), workspace_id: workspaceId, user_id: userId })]);
    expect(JSON.stringify(stored)).not.toContain(session.session_id);
    expect(JSON.stringify(stored)).not.toContain(session.csrf_token);

    const got = await directory.getSession(session.session_id!);
    expect(got).toEqual({ ...session, session_id: null });
  });

  it('gives an unknown email, a wrong password, a user without one and an inactive user the same answer, each after one check', async () => {
    const noPassword = await directory.createUser({ workspace_id: workspaceId, email: 'new@acme.test', full_name: 'New', role: 'member' });
    const gone = await directory.createUser({ workspace_id: workspaceId, email: 'gone@acme.test', full_name: 'Gone', role: 'member' });
    await setPassword(workspaceId, gone.id, PASSWORD);
    await directory.deactivateUser(workspaceId, gone.id);
    expect(noPassword.is_active).toBe(true);

    const attempts: Array<[string, string]> = [
      ['nobody@acme.test', PASSWORD],
      ['alice@acme.test', 'not the right passphrase'],
      ['new@acme.test', PASSWORD],
      ['gone@acme.test', PASSWORD],
    ];
    const answers: unknown[] = [];
    for (const [email, password] of attempts) {
      const verifiesBefore = hashes.verify;
      const err = await expectCrmError(signIn(email, password), 'unauthorized', InvalidCredentials);
      // The unknown email costs an argon2 check too (against a decoy hash), like a wrong password.
      expect([email, hashes.verify - verifiesBefore]).toEqual([email, 1]);
      answers.push({ message: err.message, details: err.details, reason: err.reason });
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]).toEqual({ message: 'email or password is incorrect', details: undefined, reason: InvalidCredentials });
    expect(await raw.collection(COLLECTIONS.sessions).find({})).toEqual([]);
  });

  it('refuses a missing email or password as invalid input, without a check', async () => {
    const before = hashes.verify;
    await expectCrmError(directory.signIn({ email: '', password: PASSWORD }), 'validation_failed');
    await expectCrmError(directory.signIn({ email: 'alice@acme.test', password: undefined as never }), 'validation_failed');
    expect(hashes.verify).toBe(before);
  });

  it('signs in to the oldest workspace whose user has that password', async () => {
    const other = await directory.createWorkspace({ name: 'Other' });
    const twin = await directory.createUser({ workspace_id: other.id, email: 'alice@acme.test', full_name: 'Alice Twin', role: 'member' });
    await setPassword(other.id, twin.id, 'the other workspace passphrase');
    expect((await signIn()).workspace.id).toBe(workspaceId);
    expect((await signIn('alice@acme.test', 'the other workspace passphrase')).workspace.id).toBe(other.id);
    await setPassword(other.id, twin.id, PASSWORD);
    expect((await signIn()).workspace.id).toBe(workspaceId);
  });

  it('ends a session after 12 h without use', async () => {
    const { session_id } = await signIn();
    advance(SESSION_IDLE_MS - 1);
    const used = await directory.getSession(session_id!);
    expect(used.idle_expires_at).toBe(new Date(clock().getTime() + SESSION_IDLE_MS).toISOString());
    advance(SESSION_IDLE_MS - 1);
    await expect(directory.getSession(session_id!)).resolves.toBeDefined();
    advance(SESSION_IDLE_MS);
    await expectCrmError(directory.getSession(session_id!), 'unauthorized', InvalidSession);
    // The record went with it.
    expect(await raw.collection(COLLECTIONS.sessions).find({})).toEqual([]);
  });

  it('ends a session 7 days after sign-in, however much it is used', async () => {
    const { session_id } = await signIn();
    for (let at = 11 * HOUR; at < SESSION_LIFETIME_MS; at += 11 * HOUR) {
      advance(11 * HOUR);
      const session = await directory.getSession(session_id!);
      expect(session.idle_expires_at <= session.expires_at).toBe(true);
    }
    advance(SESSION_LIFETIME_MS - Math.floor(SESSION_LIFETIME_MS / (11 * HOUR)) * 11 * HOUR - 1);
    await expect(directory.getSession(session_id!)).resolves.toMatchObject({ idle_expires_at: new Date(T0.getTime() + SESSION_LIFETIME_MS).toISOString() });
    advance(1);
    await expectCrmError(directory.getSession(session_id!), 'unauthorized', InvalidSession);
  });

  it('records use at most once a minute', async () => {
    const { session_id } = await signIn();
    calls.length = 0;
    await directory.getSession(session_id!);
    advance(SESSION_TOUCH_MS - 1);
    await directory.getSession(session_id!);
    expect(calls.filter((c) => c === 'sessions.updateOne')).toHaveLength(0);
    advance(1);
    await directory.getSession(session_id!);
    await directory.getSession(session_id!);
    expect(calls.filter((c) => c === 'sessions.updateOne')).toHaveLength(1);
    const [stored] = await raw.collection<SessionDoc>(COLLECTIONS.sessions).find({});
    expect(stored?.last_seen_at).toBe(new Date(T0.getTime() + SESSION_TOUCH_MS).toISOString());
  });

  it('gives each session its own csrf token, the same on every replica and every request', async () => {
    const one = await signIn();
    const two = await signIn();
    expect(one.csrf_token).not.toBe(two.csrf_token);
    expect((await directory.getSession(one.session_id!)).csrf_token).toBe(one.csrf_token);
    expect((await directory.getSession(two.session_id!)).csrf_token).toBe(two.csrf_token);
    const replica = createDirectoryService({ store: raw, secretsKey, keyPepper: 'test-pepper', cursorSecret, now: clock, passwordHasher: countingHasher().hasher });
    expect((await replica.getSession(one.session_id!)).csrf_token).toBe(one.csrf_token);
    const otherSecrets = createDirectoryService({ store: raw, secretsKey, keyPepper: 'another-pepper', cursorSecret, now: clock });
    expect((await otherSecrets.getSession(one.session_id!)).csrf_token).not.toBe(one.csrf_token);
  });

  it('signs out, idempotently, and that session only', async () => {
    const one = await signIn();
    const two = await signIn();
    expect(await directory.endSession(one.session_id!)).toEqual({ ended: true });
    await expectCrmError(directory.getSession(one.session_id!), 'unauthorized', InvalidSession);
    expect(await directory.endSession(one.session_id!)).toEqual({ ended: false });
    expect(await directory.endSession('not a session')).toEqual({ ended: false });
    await expect(directory.getSession(two.session_id!)).resolves.toBeDefined();
  });

  it('refuses an unknown or malformed session id the same way, the malformed one without a lookup', async () => {
    const { session_id } = await signIn();
    const forged = `${session_id!.slice(0, -1)}${session_id!.endsWith('A') ? 'B' : 'A'}`;
    await expectCrmError(directory.getSession(forged), 'unauthorized', InvalidSession);
    calls.length = 0;
    for (const bad of ['', 'x', { $ne: null } as never, hashOpaqueSecret(session_id!) + '=']) {
      const err = await expectCrmError(directory.getSession(bad), 'unauthorized', InvalidSession);
      expect(err.message).toBe('the session has ended; sign in again');
    }
    expect(calls).toEqual([]);
  });

  it('ends the sessions of a user who is deactivated, and keeps the others', async () => {
    const bob = await directory.createUser({ workspace_id: workspaceId, email: 'bob@acme.test', full_name: 'Bob', role: 'member' });
    await setPassword(workspaceId, bob.id, 'bob long passphrase');
    const alice = await signIn();
    const bobs = await signIn('bob@acme.test', 'bob long passphrase');
    await directory.deactivateUser(workspaceId, bob.id);
    await expectCrmError(directory.getSession(bobs.session_id!), 'unauthorized', InvalidSession);
    await expectCrmError(signIn('bob@acme.test', 'bob long passphrase'), 'unauthorized', InvalidCredentials);
    await expect(directory.getSession(alice.session_id!)).resolves.toBeDefined();
    expect(await raw.collection<SessionDoc>(COLLECTIONS.sessions).find({ user_id: bob.id })).toEqual([]);
  });

  it('forgets sessions that can no longer be used when the user signs in again', async () => {
    await signIn();
    await signIn();
    advance(SESSION_IDLE_MS);
    await signIn();
    expect(await raw.collection(COLLECTIONS.sessions).find({ user_id: userId })).toHaveLength(1);
  });
});
