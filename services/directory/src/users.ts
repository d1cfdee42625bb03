import { DirectoryError, DirectoryErrorCode, users as usersSpec } from '@crm/directory-contract';
import { CrmError, type CursorCodec, type FieldIssue, type ListQuery, type Page, emailAddressProblem, isUuid, newId } from '@crm/kit';
import { type AggregateDeps, LIMITS, optionalText, requireIds, requiredId, requiredText, throwIfAny } from './aggregate-support';
import { INDEX_NAMES, type UserDoc, type UserRole } from './directory.schema';
import { documentLister } from './store/document-list';
import { DuplicateKeyError, type DocumentCollection } from './store/document-store';
import type { FindWorkspace } from './workspaces';

/**
 * Users: the people who act for a workspace. An email is unique within its workspace in any letter
 * case, and so is a `svc_uid` when set. API keys are given `FindUser` to name the user they act for.
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
}

export interface UsersDeps extends AggregateDeps {
  users: DocumentCollection<UserDoc>;
  cursors: CursorCodec;
  findWorkspace: FindWorkspace;
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

export function createUsers(deps: UsersDeps): Users {
  const { users, cursors, findWorkspace, ready, timestamp } = deps;
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
  };
}

function toUser(doc: UserDoc): User {
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
