import { DirectoryError, DirectoryErrorCode } from '@crm/directory-contract';
import { type FieldIssue, type Logger, emailAddressProblem, remainingMs } from '@crm/kit';
import { type AggregateDeps, type EndUserAccess, requiredId, throwIfAny, unlessGone } from './aggregate-support';
import type { CredentialDoc, PasswordTokenDoc, UserDoc } from './directory.schema';
import { failureReason } from './integration-check';
import type { SendingIntegration } from './integrations';
import { type PasswordHasher, hashOpaqueSecret, isOpaqueSecret, newOpaqueSecret, passwordProblem } from './password';
import { DEFAULT_MAIL_TIMEOUT_MS, type PasswordMailer, passwordMail } from './password-mail';
import { DuplicateKeyError, ID_INDEX, type DocumentCollection } from './store/document-store';
import type { FindUser } from './users';
import type { FindWorkspace } from './workspaces';

/**
 * Credentials: users' passwords and the one-time links that set them. A password is set only
 * through a link's token (an invite or a reset, `issuePasswordToken`) or by a signed-in user, and
 * setting it ends every session of the user. Only argon2id hashes of passwords and SHA-256 hashes
 * of tokens are stored; `passwordMatcher` is how signing in checks a password.
 */

export interface IssuedPasswordToken {
  user_id: string;
  /** In clear, once: the only copy. */
  token: string;
  /** PUBLIC_URL/settings/password?token=… */
  link: string;
  expires_at: string;
  /** Whether the link went to the user through the workspace's smtp integration. */
  mailed: boolean;
}

export interface PasswordTokenInfo {
  user_id: string;
  workspace_id: string;
  email: string;
  expires_at: string;
}

export interface IssuePasswordTokenInput {
  workspace_id: string;
  user_id: string;
}

export interface SetPasswordInput {
  password: string;
  /** One of the two: a link's token, or a signed-in session's id. */
  token?: string | null;
  session_id?: string | null;
}

export interface Credentials {
  /** A new link for the user; their earlier links stop working. Refuses a deactivated user. */
  issuePasswordToken(input: IssuePasswordTokenInput): Promise<IssuedPasswordToken>;
  /** Whose link `token` is, without using it; `unauthorized` when it is unknown, used or expired. */
  checkPasswordToken(token: string): Promise<PasswordTokenInfo>;
  /** Sets the password (using the token up) and ends every session of the user. */
  setPassword(input: SetPasswordInput): Promise<{ user_id: string; workspace_id: string }>;
}

export interface CredentialsDeps extends AggregateDeps {
  credentials: DocumentCollection<CredentialDoc>;
  passwordTokens: DocumentCollection<PasswordTokenDoc>;
  hasher: PasswordHasher;
  now: () => Date;
  findWorkspace: FindWorkspace;
  findUser: FindUser;
  /** The active user a live session belongs to (`sessions.ts`); `unauthorized` for any other. */
  signedInUser: (sessionId: string) => Promise<UserDoc>;
  /** Ends every session of a user (`sessions.ts` `sessionEnder`). */
  endSessions: EndUserAccess;
  /** The workspace's enabled smtp integration with its password (`integrations.ts`). */
  sendingIntegration: (workspaceId: string) => Promise<SendingIntegration | undefined>;
  mailer: PasswordMailer;
  /** PUBLIC_URL: the gateway's public origin, where `/settings/password` is served. */
  publicUrl: string;
  log: Logger;
}

export const PASSWORD_TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** Kept back from the caller's deadline, so the answer reaches it in time when the mail is slow. */
const DEADLINE_RESERVE_MS = 1_000;
const INVALID_TOKEN = 'the link is unknown, used or expired';

const invalidToken = () => new DirectoryError(DirectoryErrorCode.InvalidPasswordToken, INVALID_TOKEN);

/** Makes every unused link of a user stop working (a deactivation). */
export function passwordTokenEnder(passwordTokens: DocumentCollection<PasswordTokenDoc>): EndUserAccess {
  return async (workspaceId, userId) => {
    await passwordTokens.deleteMany({ workspace_id: workspaceId, user_id: userId });
  };
}

export function createCredentials(deps: CredentialsDeps): Credentials {
  const { credentials, passwordTokens, hasher, now, findWorkspace, findUser, signedInUser, endSessions, ready, timestamp, log } = deps;
  const linkBase = `${deps.publicUrl.replace(/\/+$/, '')}/settings/password?token=`;

  /** The usable link `token` names, and its user, who must still be active. */
  async function usableToken(token: unknown): Promise<{ doc: PasswordTokenDoc; user: UserDoc }> {
    if (!isOpaqueSecret(token)) throw invalidToken();
    await ready();
    const doc = await passwordTokens.findOne({ _id: hashOpaqueSecret(token) });
    if (!doc || doc.used_at !== null || doc.expires_at <= now().toISOString()) throw invalidToken();
    const user = await findUser(doc.workspace_id, doc.user_id).catch(unlessGone);
    if (!user?.is_active) throw invalidToken();
    return { doc, user };
  }

  /** Sends the link when the workspace has a sending integration; never throws, never logs a secret. */
  async function mailLink(user: UserDoc, link: string, token: string): Promise<boolean> {
    const context = { workspace_id: user.workspace_id, user_id: user._id };
    let account: SendingIntegration | undefined;
    try {
      account = await deps.sendingIntegration(user.workspace_id);
    } catch (err) {
      // A secret that no longer decrypts, or a store that did not answer: the link is still given.
      log.warn({ ...context, error: (err as Error)?.name }, 'password link not mailed: the smtp integration could not be read');
      return false;
    }
    if (!account) return false;
    const { config, password } = account;
    const address = config.from_email ?? (config.username && !emailAddressProblem(config.username) ? config.username : undefined);
    if (!address) {
      log.warn({ ...context, integration_id: account.integration_id }, 'password link not mailed: the smtp integration has no from_email');
      return false;
    }
    const timeoutMs = Math.min(DEFAULT_MAIL_TIMEOUT_MS, (remainingMs() ?? Number.POSITIVE_INFINITY) - DEADLINE_RESERVE_MS);
    if (timeoutMs <= 0) return false;
    try {
      const workspace = await findWorkspace(user.workspace_id);
      const mail = passwordMail({
        from: { name: config.from_name ?? workspace.name, address },
        to: user.email,
        fullName: user.full_name,
        workspaceName: workspace.name,
        link,
      });
      await deps.mailer.send({ config, password }, mail, timeoutMs);
      log.info({ ...context, integration_id: account.integration_id }, 'password link mailed');
      return true;
    } catch (err) {
      // A server may echo what it was sent: the reason loses the password in every AUTH form, and the token.
      const reason = failureReason(err, config, password).split(token).join('[token]');
      log.warn({ ...context, integration_id: account.integration_id, reason }, 'password link not mailed');
      return false;
    }
  }

  /** Stores the hash as the user's password, whether or not they had one. */
  async function storePassword(user: UserDoc, passwordHash: string): Promise<void> {
    const at = timestamp();
    const filter = { _id: user._id, workspace_id: user.workspace_id };
    const { matchedCount } = await credentials.updateOne(filter, { $set: { password_hash: passwordHash, updated_at: at } });
    if (matchedCount > 0) return;
    try {
      await credentials.insertOne({ ...filter, password_hash: passwordHash, created_at: at, updated_at: at });
    } catch (err) {
      // Another setting of the first password got there first: this one, later, wins.
      if (!(err instanceof DuplicateKeyError && err.index === ID_INDEX)) throw err;
      await credentials.updateOne(filter, { $set: { password_hash: passwordHash, updated_at: at } });
    }
  }

  return {
    async issuePasswordToken(input) {
      const issues: FieldIssue[] = [];
      const workspaceId = requiredId(issues, 'workspace_id', input?.workspace_id);
      const userId = requiredId(issues, 'user_id', input?.user_id);
      throwIfAny(issues);
      await ready();
      const user = await findUser(workspaceId, userId);
      if (!user.is_active) throwIfAny([{ field: 'user_id', message: 'names a deactivated user' }]);

      // One link at a time: the earlier ones (used, unused or expired) are gone.
      await passwordTokens.deleteMany({ workspace_id: workspaceId, user_id: userId });
      const token = newOpaqueSecret();
      const created = now();
      const doc: PasswordTokenDoc = {
        _id: hashOpaqueSecret(token),
        workspace_id: workspaceId,
        user_id: userId,
        created_at: created.toISOString(),
        expires_at: new Date(created.getTime() + PASSWORD_TOKEN_LIFETIME_MS).toISOString(),
        used_at: null,
      };
      await passwordTokens.insertOne(doc);
      const link = linkBase + token;
      const mailed = await mailLink(user, link, token);
      return { user_id: userId, token, link, expires_at: doc.expires_at, mailed };
    },

    async checkPasswordToken(token) {
      const { doc, user } = await usableToken(token);
      return { user_id: user._id, workspace_id: user.workspace_id, email: user.email, expires_at: doc.expires_at };
    },

    async setPassword(input) {
      const byToken = typeof input?.token === 'string' && input.token !== '';
      const bySession = typeof input?.session_id === 'string' && input.session_id !== '';
      if (byToken === bySession) {
        throwIfAny([{ field: 'token', message: byToken ? 'give a token or a session_id, not both' : 'is required unless a session_id is given' }]);
      }
      if (typeof input?.password !== 'string') throwIfAny([{ field: 'password', message: 'is required' }]);
      await ready();
      const link = byToken ? await usableToken(input.token) : undefined;
      const user = link ? link.user : await signedInUser(input.session_id as string);

      const problem = passwordProblem(input.password, user.email);
      if (problem) throwIfAny([{ field: 'password', message: problem }]);
      const passwordHash = await hasher.hash(input.password);
      if (link) {
        // Conditional: of two uses at once, exactly one finds the token unused.
        const { matchedCount } = await passwordTokens.updateOne(
          { _id: link.doc._id, workspace_id: link.doc.workspace_id, used_at: null, expires_at: { $gt: now().toISOString() } },
          { $set: { used_at: timestamp() } },
        );
        if (matchedCount === 0) throw invalidToken();
      }
      await storePassword(user, passwordHash);
      await endSessions(user.workspace_id, user._id);
      return { user_id: user._id, workspace_id: user.workspace_id };
    },
  };
}

/** Finds the user an email and password sign in as, or undefined; always at the cost of a check. */
export type PasswordMatcher = (email: string, password: string) => Promise<UserDoc | undefined>;

/** Workspaces one email may sign in to; one check each, so the bound is on the time a sign-in takes. */
export const SIGN_IN_CANDIDATES = 10;

/**
 * The active users with `email` (across workspaces, oldest first, at most 10) that have a password,
 * checked in turn: the first whose password matches. When none has a password (unknown email,
 * deactivated user, invite not yet accepted) a password is still checked, against a hash of a random
 * one made with the same parameters, so every answer takes the time of at least one check.
 */
export function passwordMatcher(deps: {
  users: DocumentCollection<UserDoc>;
  credentials: DocumentCollection<CredentialDoc>;
  hasher: PasswordHasher;
}): PasswordMatcher {
  const { users, credentials, hasher } = deps;
  let decoy: Promise<string> | undefined;
  const decoyHash = () => {
    decoy ??= hasher.hash(newOpaqueSecret()).catch((err: unknown) => {
      decoy = undefined;
      throw err;
    });
    return decoy;
  };

  return async (email, password) => {
    // Past these lengths no user's email or password can match: only the decoy is checked.
    const plausible = email.length <= 1_000 && password.length <= 1_000;
    const candidates = plausible
      ? await users.find({ email_lower: email.trim().toLowerCase(), is_active: true }, { sort: { created_at: 1, _id: 1 }, limit: SIGN_IN_CANDIDATES })
      : [];
    const stored =
      candidates.length > 0
        ? await credentials.find({ $or: candidates.map((user) => ({ _id: user._id, workspace_id: user.workspace_id })) })
        : [];
    const hashOf = new Map(stored.map((doc) => [`${doc.workspace_id}:${doc._id}`, doc.password_hash]));
    let checked = 0;
    for (const user of candidates) {
      const passwordHash = hashOf.get(`${user.workspace_id}:${user._id}`);
      if (passwordHash === undefined) continue;
      checked++;
      if (await hasher.verify(passwordHash, password)) return user;
    }
    if (checked === 0) await hasher.verify(await decoyHash(), password);
    return undefined;
  };
}
