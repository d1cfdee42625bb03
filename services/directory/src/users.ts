import { DirectoryError, DirectoryErrorCode, users as usersSpec } from '@crm/directory-contract';
import { CrmError, type CursorCodec, type FieldIssue, type ListQuery, type Page, emailAddressProblem, isUuid, newId } from '@crm/kit';
import { type AggregateDeps, type EndUserAccess, LIMITS, optionalText, requireIds, requiredId, requiredText, throwIfAny } from './aggregate-support';
import { INDEX_NAMES, type UserDoc, type UserRole } from './directory.schema';
import { documentLister } from './store/document-list';
import { DuplicateKeyError, type DocumentCollection } from './store/document-store';
import type { FindWorkspace } from './workspaces';

/**
 * Users: the people who act for a workspace. An email is unique within its workspace in any letter
 * case, and so is a `svc_uid` when set. API keys are given `FindUser` to name the user they act for.
 * A deactivated user stays (their records keep naming them) but can do nothing: deactivation ends
 * their sessions and links and revokes the keys that act for them.
 */

export const USER_ROLES: readonly UserRole[] = ['owner', 'admin', 'member'];

export interface User {
  id: string;
  workspace_id: string;
  email: string;
  full_name: string;
  role: UserRole;
  is_active: boolean;
  svc_uid: string | null;
  created_at: string;
  updated_at: string;
}

export interface CreateUserInput {
  workspace_id: string;
  email: string;
  full_name: string;
  /** owner, admin or member; anything else is refused. */
  role: string;
  svc_uid?: string | null;
}

export interface Users {
  createUser(input: CreateUserInput): Promise<User>;
  getUser(workspaceId: string, id: string): Promise<User>;
  /** GET /v1/users: the query as parsed by the users declaration; records as the API shows them. */
  listUsers(workspaceId: string, query: ListQuery): Promise<Page>;
  /** Sets `is_active` false and ends every access the user had; idempotent. */
  deactivateUser(workspaceId: string, id: string): Promise<User>;
  /**
   * The workspace a user belongs to, found by the user's id alone: for the operator's command line
   * only (`crm admin user invite|deactivate <user-id>`), which names users across workspaces. Every
   * call it precedes names the workspace found.
   */
  workspaceOfUser(id: string): Promise<string>;
}

export interface UsersDeps extends AggregateDeps {
  users: DocumentCollection<UserDoc>;
  cursors: CursorCodec;
  findWorkspace: FindWorkspace;
  /** Ends a deactivated user's sessions and links and revokes their keys. */
  endAccess: EndUserAccess;
}

/** A user's document in its workspace; `not_found` for an unknown or malformed id, or one of another workspace. */
export type FindUser = (workspaceId: string, id: string) => Promise<UserDoc>;

export function userFinder(users: DocumentCollection<UserDoc>): FindUser {
  return async (workspaceId, id) => {
    const doc = isUuid(id) && isUuid(workspaceId) ? await users.findOne({ _id: id, workspace_id: workspaceId }) : null;
    if (!doc) throw CrmError.notFound('user');
    return doc;
  };
}

/** The full names of a workspace's users, by id; ids of no user of the workspace are left out. */
export type UserNames = (workspaceId: string, ids: readonly string[]) => Promise<Map<string, string>>;

export function userNamer(users: DocumentCollection<UserDoc>): UserNames {
  return async (workspaceId, ids) => {
    const wanted = [...new Set(ids)].filter(isUuid);
    if (wanted.length === 0 || !isUuid(workspaceId)) return new Map();
    const found = await users.find({ workspace_id: workspaceId, _id: { $in: wanted } });
    return new Map(found.map((doc) => [doc._id, doc.full_name]));
  };
}

export function createUsers(deps: UsersDeps): Users {
  const { users, cursors, findWorkspace, endAccess, ready, timestamp } = deps;
  const findUser = userFinder(users);
  const userList = documentLister({ spec: usersSpec, collection: users, cursors, toRecord: (doc) => ({ ...toUser(doc) }) });

  return {
    async createUser(input) {
      const issues: FieldIssue[] = [];
      const workspaceId = requiredId(issues, 'workspace_id', input?.workspace_id);
      // Its length is the address rule's, in octets, like every other address the API takes.
      const email = requiredText(issues, 'email', input?.email, Number.POSITIVE_INFINITY);
      const emailProblem = email ? emailAddressProblem(email) : undefined;
      if (emailProblem) issues.push({ field: 'email', message: emailProblem });
      const fullName = requiredText(issues, 'full_name', input?.full_name, LIMITS.name);
      const role = input?.role as UserRole;
      if (!USER_ROLES.includes(role)) issues.push({ field: 'role', message: `must be one of ${USER_ROLES.join(', ')}` });
      const svcUid = optionalText(issues, 'svc_uid', input?.svc_uid, LIMITS.svcUid);
      throwIfAny(issues);
      await ready();
      await findWorkspace(workspaceId);

      const at = timestamp();
      const doc: UserDoc = {
        _id: newId(),
        workspace_id: workspaceId,
        email,
        email_lower: email.toLowerCase(),
        full_name: fullName,
        role,
        is_active: true,
        svc_uid: svcUid,
        created_at: at,
        updated_at: at,
      };
      try {
        await users.insertOne(doc);
      } catch (err) {
        if (err instanceof DuplicateKeyError && err.index === INDEX_NAMES.userEmail) {
          throw new DirectoryError(DirectoryErrorCode.EmailTaken, 'a user with this email already exists in the workspace');
        }
        if (err instanceof DuplicateKeyError && err.index === INDEX_NAMES.userSvcUid) {
          throw new DirectoryError(DirectoryErrorCode.SvcUidTaken, 'another user in the workspace already has this svc_uid');
        }
        throw err;
      }
      return toUser(doc);
    },

    async workspaceOfUser(id) {
      requireIds({ id });
      await ready();
      const doc = isUuid(id) ? await users.findOne({ _id: id }) : null;
      if (!doc) throw CrmError.notFound('user');
      return doc.workspace_id;
    },

    async getUser(workspaceId, id) {
      requireIds({ workspace_id: workspaceId, id });
      await ready();
      return toUser(await findUser(workspaceId, id));
    },

    async listUsers(workspaceId, query) {
      requireIds({ workspace_id: workspaceId });
      await ready();
      return userList.list(workspaceId, query);
    },

    async deactivateUser(workspaceId, id) {
      requireIds({ workspace_id: workspaceId, id });
      await ready();
      const before = await findUser(workspaceId, id);
      // The flag first: from then on nothing new (a session, a key) can be given to the user, so
      // ending what exists leaves nothing behind. Ending runs on every call, finishing one that failed.
      if (before.is_active) {
        await users.updateOne({ _id: id, workspace_id: workspaceId, is_active: true }, { $set: { is_active: false, updated_at: timestamp() } });
      }
      await endAccess(workspaceId, id);
      return toUser(await findUser(workspaceId, id));
    },
  };
}

export function toUser(doc: UserDoc): User {
  return {
    id: doc._id,
    workspace_id: doc.workspace_id,
    email: doc.email,
    full_name: doc.full_name,
    role: doc.role,
    is_active: doc.is_active,
    svc_uid: doc.svc_uid,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  };
}
