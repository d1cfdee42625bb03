import { DirectoryErrorCode } from '@crm/directory-contract';
import { PASSWORD_TOKEN_LIFETIME_MS } from './credentials';
import { COLLECTIONS, type CredentialDoc, type PasswordTokenDoc } from './directory.schema';
import type { DirectoryService } from './directory.service';
import { hashOpaqueSecret } from './password';
import { createPasswordMailer } from './password-mail';
import type { DocumentStore } from './store/document-store';
import { OTHER_UUID, T0, TEST_PUBLIC_URL, expectCrmError, openTestDirectory } from './testing/test-directory';
import { type TestSmtpServer, startTestSmtpServer } from './testing/test-smtp-server';

const PASSWORD = 'correct horse battery staple';
const INVALID_TOKEN = DirectoryErrorCode.InvalidPasswordToken;

describe('credentials', () => {
  let raw: DocumentStore;
  let directory: DirectoryService;
  let advance: (ms: number) => void;
  let logLines: string[];
  let workspaceId: string;
  let userId: string;

  beforeEach(async () => {
    ({ raw, directory, advance, logLines } = await openTestDirectory());
    workspaceId = (await directory.createWorkspace({ name: 'Acme' })).id;
    userId = (await directory.createUser({ workspace_id: workspaceId, email: 'Alice@Acme.test', full_name: 'Alice Martin', role: 'member' })).id;
  });

  afterEach(async () => {
    await raw.close();
  });

  const issue = () => directory.issuePasswordToken({ workspace_id: workspaceId, user_id: userId });
  const storedEverything = async () =>
    JSON.stringify(await Promise.all(Object.values(COLLECTIONS).map((name) => raw.collection(name).find({}))));

  it('issues a 24 h link under PUBLIC_URL, storing only the hash of its token', async () => {
    const issued = await issue();
    expect(issued).toEqual({
      user_id: userId,
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      link: `https://crm.acme.test/settings/password?token=${issued.token}`,
      expires_at: new Date(T0.getTime() + PASSWORD_TOKEN_LIFETIME_MS).toISOString(),
      mailed: false,
    });
    expect(TEST_PUBLIC_URL.endsWith('/')).toBe(true);
    expect(await storedEverything()).not.toContain(issued.token);
    expect(await raw.collection<PasswordTokenDoc>(COLLECTIONS.passwordTokens).findOne({ _id: hashOpaqueSecret(issued.token) })).toMatchObject({
      workspace_id: workspaceId,
      user_id: userId,
      used_at: null,
    });
    expect(await directory.checkPasswordToken(issued.token)).toEqual({
      user_id: userId,
      workspace_id: workspaceId,
      email: 'Alice@Acme.test',
      expires_at: issued.expires_at,
    });
  });

  it('refuses to issue a link for a user of another workspace, or an unknown one', async () => {
    const other = await directory.createWorkspace({ name: 'Other' });
    await expectCrmError(directory.issuePasswordToken({ workspace_id: other.id, user_id: userId }), 'not_found');
    await expectCrmError(directory.issuePasswordToken({ workspace_id: workspaceId, user_id: OTHER_UUID }), 'not_found');
    await expectCrmError(directory.issuePasswordToken({ workspace_id: '', user_id: '' }), 'validation_failed');
  });

  it('sets an argon2id password with a link, which then works no more', async () => {
    const { token } = await issue();
    expect(await directory.setPassword({ password: PASSWORD, token })).toEqual({ user_id: userId, workspace_id: workspaceId });
    const stored = await raw.collection<CredentialDoc>(COLLECTIONS.credentials).findOne({ _id: userId, workspace_id: workspaceId });
    expect(stored?.password_hash).toMatch(/^\$argon2id\$/);
    expect(await storedEverything()).not.toContain(PASSWORD);

    await expectCrmError(directory.setPassword({ password: 'another long passphrase', token }), 'unauthorized', INVALID_TOKEN);
    await expectCrmError(directory.checkPasswordToken(token), 'unauthorized', INVALID_TOKEN);
    await expect(directory.signIn({ email: 'alice@acme.test', password: PASSWORD })).resolves.toMatchObject({ user: { id: userId } });
  });

  it('lets exactly one of two uses of a link at once set the password', async () => {
    const { token } = await issue();
    const outcomes = await Promise.allSettled([
      directory.setPassword({ password: 'first long passphrase', token }),
      directory.setPassword({ password: 'second long passphrase', token }),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const lost = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toMatchObject({ code: 'unauthorized', reason: INVALID_TOKEN });
    const won = outcomes[0]!.status === 'fulfilled' ? 'first long passphrase' : 'second long passphrase';
    await expect(directory.signIn({ email: 'alice@acme.test', password: won })).resolves.toBeDefined();
  });

  it('ends a link 24 h after it was issued', async () => {
    const { token } = await issue();
    advance(PASSWORD_TOKEN_LIFETIME_MS - 1);
    await expect(directory.checkPasswordToken(token)).resolves.toMatchObject({ user_id: userId });
    advance(1);
    await expectCrmError(directory.checkPasswordToken(token), 'unauthorized', INVALID_TOKEN);
    await expectCrmError(directory.setPassword({ password: PASSWORD, token }), 'unauthorized', INVALID_TOKEN);
  });

  it('ends the earlier links of a user when it issues a new one', async () => {
    const first = await issue();
    const second = await issue();
    await expectCrmError(directory.checkPasswordToken(first.token), 'unauthorized', INVALID_TOKEN);
    await expectCrmError(directory.setPassword({ password: PASSWORD, token: first.token }), 'unauthorized', INVALID_TOKEN);
    await expect(directory.setPassword({ password: PASSWORD, token: second.token })).resolves.toBeDefined();
  });

  it('refuses a weak password without using the link up', async () => {
    const { token } = await issue();
    const short = await expectCrmError(directory.setPassword({ password: 'short', token }), 'validation_failed');
    expect(short.details).toEqual([{ field: 'password', message: 'must be at least 12 characters' }]);
    const common = await expectCrmError(directory.setPassword({ password: 'QWERTY123456', token }), 'validation_failed');
    expect(common.details).toEqual([{ field: 'password', message: expect.stringMatching(/most common passwords/) }]);
    const own = await expectCrmError(directory.setPassword({ password: 'alice@acme.test', token }), 'validation_failed');
    expect(own.details).toEqual([{ field: 'password', message: 'must not be your email address' }]);
    await expect(directory.setPassword({ password: PASSWORD, token })).resolves.toBeDefined();
  });

  it('answers an unknown, malformed or missing token the same way, and wants one way to say whose password', async () => {
    for (const token of ['x'.repeat(43), 'short', { $ne: null } as never]) {
      const err = await expectCrmError(directory.checkPasswordToken(token), 'unauthorized', INVALID_TOKEN);
      expect(err.message).toBe('the link is unknown, used or expired');
    }
    await expectCrmError(directory.setPassword({ password: PASSWORD }), 'validation_failed');
    const { token } = await issue();
    await expectCrmError(directory.setPassword({ password: PASSWORD, token, session_id: token }), 'validation_failed');
  });

  it('sets the password of a signed-in user and ends every session they had', async () => {
    await directory.setPassword({ password: PASSWORD, token: (await issue()).token });
    const one = await directory.signIn({ email: 'alice@acme.test', password: PASSWORD });
    const two = await directory.signIn({ email: 'alice@acme.test', password: PASSWORD });
    await directory.setPassword({ password: 'a brand new passphrase', session_id: one.session_id });
    for (const session of [one, two]) {
      await expectCrmError(directory.getSession(session.session_id!), 'unauthorized', DirectoryErrorCode.InvalidSession);
    }
    await expectCrmError(directory.signIn({ email: 'alice@acme.test', password: PASSWORD }), 'unauthorized', DirectoryErrorCode.InvalidCredentials);
    await expect(directory.signIn({ email: 'alice@acme.test', password: 'a brand new passphrase' })).resolves.toBeDefined();
    await expectCrmError(directory.setPassword({ password: PASSWORD, session_id: one.session_id }), 'unauthorized', DirectoryErrorCode.InvalidSession);
  });

  it('gives a deactivated user no link, and ends the links they had', async () => {
    const { token } = await issue();
    await directory.deactivateUser(workspaceId, userId);
    await expectCrmError(directory.checkPasswordToken(token), 'unauthorized', INVALID_TOKEN);
    await expectCrmError(directory.setPassword({ password: PASSWORD, token }), 'unauthorized', INVALID_TOKEN);
    const err = await expectCrmError(issue(), 'validation_failed');
    expect(err.details).toEqual([{ field: 'user_id', message: 'names a deactivated user' }]);
  });

  it('logs no token and no password', async () => {
    const { token } = await issue();
    await directory.setPassword({ password: PASSWORD, token });
    await directory.signIn({ email: 'alice@acme.test', password: PASSWORD });
    const logged = logLines.join('\n');
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(PASSWORD);
  });
});

describe('mailing the link', () => {
  const ACCOUNT = { username: 'mailer@acme.test', password: 'smtp-secret-pw' };
  let smtp: TestSmtpServer;
  let raw: DocumentStore;
  let directory: DirectoryService;
  let logLines: string[];
  let workspaceId: string;
  let userId: string;

  beforeAll(async () => {
    smtp = await startTestSmtpServer(ACCOUNT);
  });

  afterAll(async () => {
    await smtp.stop();
  });

  beforeEach(async () => {
    ({ raw, directory, logLines } = await openTestDirectory({ passwordMailer: createPasswordMailer({ tls: { ca: smtp.ca } }) }));
    workspaceId = (await directory.createWorkspace({ name: 'Acme' })).id;
    userId = (await directory.createUser({ workspace_id: workspaceId, email: 'bob@acme.test', full_name: 'Bob Stone', role: 'admin' })).id;
  });

  afterEach(async () => {
    await raw.close();
  });

  const addIntegration = (config: Record<string, unknown>) =>
    directory.createIntegration({
      workspace_id: workspaceId,
      type: 'smtp',
      name: 'Mail',
      secret: ACCOUNT.password,
      config: { host: smtp.host, port: smtp.port, secure: false, username: ACCOUNT.username, ...config },
    });

  it('mails the link through the workspace smtp integration, over TLS, signed in', async () => {
    await addIntegration({ from_email: 'crm@acme.test', from_name: 'Acme CRM' });
    const before = smtp.messages.length;
    const issued = await directory.issuePasswordToken({ workspace_id: workspaceId, user_id: userId });
    expect(issued.mailed).toBe(true);
    const mail = smtp.messages[before]!;
    expect(mail.from).toBe('crm@acme.test');
    expect(mail.to).toEqual(['bob@acme.test']);
    expect(mail.raw).toContain('Subject: Set your password for Acme');
    expect(mail.raw).toMatch(/From: "?Acme CRM"? <crm@acme\.test>/);
    // Quoted-printable may fold a long line: the link is compared unfolded.
    expect(mail.raw.replace(/=\r\n/g, '').replace(/=3D/g, '=')).toContain(issued.link);
    expect(logLines.join('\n')).not.toContain(issued.token);
  });

  it('sends from the login when it is an address and no from_email is set', async () => {
    await addIntegration({});
    const before = smtp.messages.length;
    expect((await directory.issuePasswordToken({ workspace_id: workspaceId, user_id: userId })).mailed).toBe(true);
    expect(smtp.messages[before]!.from).toBe(ACCOUNT.username);
  });

  it('does not mail without an smtp integration, and still gives the link', async () => {
    const before = smtp.messages.length;
    const issued = await directory.issuePasswordToken({ workspace_id: workspaceId, user_id: userId });
    expect(issued.mailed).toBe(false);
    expect(smtp.messages.length).toBe(before);
    await expect(directory.checkPasswordToken(issued.token)).resolves.toMatchObject({ user_id: userId });
  });

  it('answers mailed=false when the server refuses, logging why without a secret', async () => {
    await directory.createIntegration({
      workspace_id: workspaceId,
      type: 'smtp',
      name: 'Mail',
      secret: 'a-wrong-password',
      config: { host: smtp.host, port: smtp.port, username: ACCOUNT.username, from_email: 'crm@acme.test' },
    });
    const issued = await directory.issuePasswordToken({ workspace_id: workspaceId, user_id: userId });
    expect(issued.mailed).toBe(false);
    await expect(directory.checkPasswordToken(issued.token)).resolves.toMatchObject({ user_id: userId });
    const logged = logLines.join('\n');
    expect(logged).toMatch(/password link not mailed/);
    expect(logged).toMatch(/535/);
    expect(logged).not.toContain('a-wrong-password');
    expect(logged).not.toContain(issued.token);
  });
});
