import { createHmac } from 'node:crypto';
import { DirectoryError, DirectoryErrorCode } from '@crm/directory-contract';
import type { FieldIssue } from '@crm/kit';
import { type AggregateDeps, type EndUserAccess, throwIfAny, unlessGone } from './aggregate-support';
import type { PasswordMatcher } from './credentials';
import type { SessionDoc, UserDoc } from './directory.schema';
import { hashOpaqueSecret, isOpaqueSecret, newOpaqueSecret } from './password';
import type { DocumentCollection } from './store/document-store';
import { type FindUser, type User, toUser } from './users';
import { type FindWorkspace, type Workspace, toWorkspace } from './workspaces';

/**
 * Sessions: a signed-in browser of the settings pages. The id is an opaque random secret held in a
 * cookie; directory keeps a record of it (its SHA-256 only), so every gateway replica serves every
 * session, and signing out, a new password or a deactivation ends it at once. A session lasts 7 days
 * at most and ends after 12 h without use.
 */

export interface Session {
  /** The id in clear: only in the answer to a sign-in, for the cookie; null otherwise. */
  session_id: string | null;
  user: User;
  workspace: Workspace;
  expires_at: string;
  idle_expires_at: string;
  /** Bound to the session id, the same on every replica; stored nowhere. */
  csrf_token: string;
}

export interface SignInInput {
  email: string;
  password: string;
}

export interface Sessions {
  /** `unauthorized` with the same message for an unknown email, a wrong password and an inactive user. */
  signIn(input: SignInInput): Promise<Session>;
  /** The live session and its user; moves its idle expiry forward. `unauthorized` for any other. */
  getSession(sessionId: string): Promise<Session>;
  /** Signs out; idempotent. `ended` says whether this call ended it (false: it had already ended, or never was). */
  endSession(sessionId: string): Promise<{ ended: boolean }>;
}

export interface SessionsAggregate extends Sessions {
  /** The active user of a live session (moving its idle expiry forward), for what a session may do. */
  signedInUser(sessionId: string): Promise<UserDoc>;
}

export interface SessionsDeps extends AggregateDeps {
  sessions: DocumentCollection<SessionDoc>;
  now: () => Date;
  matchPassword: PasswordMatcher;
  findUser: FindUser;
  findWorkspace: FindWorkspace;
  /** HMAC key of the CSRF tokens; the same on every replica (derived from its configured secrets). */
  csrfKey: Buffer;
}

export const SESSION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** `last_seen_at` moves at most this often: a page view is not worth a write each time. */
export const SESSION_TOUCH_MS = 60_000;

const INVALID_CREDENTIALS = 'email or password is incorrect';
const INVALID_SESSION = 'the session has ended; sign in again';

const invalidSession = () => new DirectoryError(DirectoryErrorCode.InvalidSession, INVALID_SESSION);

/** Ends every session of a user (a new password, a deactivation). */
export function sessionEnder(sessions: DocumentCollection<SessionDoc>): EndUserAccess {
  return async (workspaceId, userId) => {
    await sessions.deleteMany({ workspace_id: workspaceId, user_id: userId });
  };
}

export function createSessions(deps: SessionsDeps): SessionsAggregate {
  const { sessions, now, matchPassword, findUser, findWorkspace, csrfKey, ready } = deps;
  const csrfToken = (sessionId: string) => createHmac('sha256', csrfKey).update(sessionId, 'utf8').digest('base64url');
  const idleExpiry = (doc: SessionDoc, lastSeen: string) => {
    const idle = new Date(Date.parse(lastSeen) + SESSION_IDLE_MS).toISOString();
    return idle < doc.expires_at ? idle : doc.expires_at;
  };
  const isOver = (doc: SessionDoc, at: Date) =>
    doc.expires_at <= at.toISOString() || doc.last_seen_at <= new Date(at.getTime() - SESSION_IDLE_MS).toISOString();

  /** The live session `sessionId` names, its active user and workspace; the session is ended otherwise. */
  async function live(sessionId: unknown) {
    if (!isOpaqueSecret(sessionId)) throw invalidSession();
    await ready();
    const doc = await sessions.findOne({ _id: hashOpaqueSecret(sessionId) });
    if (!doc) throw invalidSession();
    const at = now();
    const user = isOver(doc, at) ? undefined : await findUser(doc.workspace_id, doc.user_id).catch(unlessGone);
    const workspace = user?.is_active ? await findWorkspace(doc.workspace_id).catch(unlessGone) : undefined;
    if (!user || !workspace) {
      await sessions.deleteOne({ _id: doc._id, workspace_id: doc.workspace_id });
      throw invalidSession();
    }
    let lastSeen = doc.last_seen_at;
    const touchBefore = new Date(at.getTime() - SESSION_TOUCH_MS).toISOString();
    if (lastSeen <= touchBefore) {
      // Conditional on the value read, so concurrent requests of one page write it once.
      lastSeen = at.toISOString();
      await sessions.updateOne({ _id: doc._id, workspace_id: doc.workspace_id, last_seen_at: doc.last_seen_at }, { $set: { last_seen_at: lastSeen } });
    }
    return { doc, user, workspace, lastSeen };
  }

  return {
    async signIn(input) {
      const issues: FieldIssue[] = [];
      for (const field of ['email', 'password'] as const) {
        if (typeof input?.[field] !== 'string' || input[field] === '') issues.push({ field, message: 'is required' });
      }
      throwIfAny(issues);
      await ready();
      const user = await matchPassword(input.email, input.password);
      const workspace = user ? await findWorkspace(user.workspace_id).catch(unlessGone) : undefined;
      if (!user || !workspace) throw new DirectoryError(DirectoryErrorCode.InvalidCredentials, INVALID_CREDENTIALS);

      const at = now();
      const iso = at.toISOString();
      // What can never be used again goes: a user's records stay as many as their live sessions.
      await sessions.deleteMany({
        workspace_id: user.workspace_id,
        user_id: user._id,
        $or: [{ expires_at: { $lte: iso } }, { last_seen_at: { $lte: new Date(at.getTime() - SESSION_IDLE_MS).toISOString() } }],
      });
      const sessionId = newOpaqueSecret();
      const doc: SessionDoc = {
        _id: hashOpaqueSecret(sessionId),
        workspace_id: user.workspace_id,
        user_id: user._id,
        created_at: iso,
        last_seen_at: iso,
        expires_at: new Date(at.getTime() + SESSION_LIFETIME_MS).toISOString(),
      };
      await sessions.insertOne(doc);
      return {
        session_id: sessionId,
        user: toUser(user),
        workspace: toWorkspace(workspace),
        expires_at: doc.expires_at,
        idle_expires_at: idleExpiry(doc, iso),
        csrf_token: csrfToken(sessionId),
      };
    },

    async getSession(sessionId) {
      const { doc, user, workspace, lastSeen } = await live(sessionId);
      return {
        session_id: null,
        user: toUser(user),
        workspace: toWorkspace(workspace),
        expires_at: doc.expires_at,
        idle_expires_at: idleExpiry(doc, lastSeen),
        csrf_token: csrfToken(sessionId),
      };
    },

    async endSession(sessionId) {
      if (!isOpaqueSecret(sessionId)) return { ended: false };
      await ready();
      const { deletedCount } = await sessions.deleteOne({ _id: hashOpaqueSecret(sessionId) });
      return { ended: deletedCount > 0 };
    },

    async signedInUser(sessionId) {
      return (await live(sessionId)).user;
    },
  };
}
