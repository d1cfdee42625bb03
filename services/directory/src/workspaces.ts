import { CrmError, type FieldIssue, isUuid, newId } from '@crm/kit';
import { type AggregateDeps, LIMITS, requireIds, requiredText, throwIfAny } from './aggregate-support';
import type { WorkspaceDoc } from './directory.schema';
import type { DocumentCollection } from './store/document-store';

/**
 * Workspaces: the tenants. Users, keys and integrations are created only inside an existing one,
 * so the other aggregates are given `FindWorkspace`.
 */

export interface Workspace {
  id: string;
  name: string;
  created_at: string;
}

export interface CreateWorkspaceInput {
  name: string;
}

/** A page of workspaces, oldest first; `next_after` is null on the last page. */
export interface WorkspacePage {
  data: Workspace[];
  next_after: string | null;
}

export interface Workspaces {
  createWorkspace(input: CreateWorkspaceInput): Promise<Workspace>;
  getWorkspace(id: string): Promise<Workspace>;
  /** The operator's view of every tenant (`crm admin workspace list`), a page at a time. */
  listWorkspaces(input: { limit?: number; after?: string | null }): Promise<WorkspacePage>;
}

export const WORKSPACE_PAGE = { default: 100, max: 1000 } as const;

export interface WorkspacesDeps extends AggregateDeps {
  workspaces: DocumentCollection<WorkspaceDoc>;
}

/** A workspace's document; `not_found` for an unknown id, and for a malformed one, which cannot exist. */
export type FindWorkspace = (id: string) => Promise<WorkspaceDoc>;

export function workspaceFinder(workspaces: DocumentCollection<WorkspaceDoc>): FindWorkspace {
  return async (id) => {
    const doc = isUuid(id) ? await workspaces.findOne({ _id: id }) : null;
    if (!doc) throw CrmError.notFound('workspace');
    return doc;
  };
}

export function createWorkspaces(deps: WorkspacesDeps): Workspaces {
  const { workspaces, ready, timestamp } = deps;
  const findWorkspace = workspaceFinder(workspaces);

  return {
    async createWorkspace(input) {
      const issues: FieldIssue[] = [];
      const name = requiredText(issues, 'name', input?.name, LIMITS.name);
      throwIfAny(issues);
      await ready();
      const at = timestamp();
      const doc: WorkspaceDoc = { _id: newId(), name, created_at: at, updated_at: at };
      await workspaces.insertOne(doc);
      return toWorkspace(doc);
    },

    async getWorkspace(id) {
      requireIds({ id });
      await ready();
      return toWorkspace(await findWorkspace(id));
    },

    async listWorkspaces(input) {
      const issues: FieldIssue[] = [];
      const limit = input?.limit || WORKSPACE_PAGE.default;
      if (!Number.isInteger(limit) || limit < 1 || limit > WORKSPACE_PAGE.max) {
        issues.push({ field: 'limit', message: `must be an integer from 1 to ${WORKSPACE_PAGE.max}` });
      }
      const after = input?.after || null;
      if (after !== null && !isUuid(after)) issues.push({ field: 'after', message: 'must be the next_after of a previous page' });
      throwIfAny(issues);
      await ready();
      // Ids are UUIDv7, so their order is the order of creation: the last id seen is the cursor.
      const docs = await workspaces.find(after === null ? {} : { _id: { $gt: after } }, { sort: { _id: 1 }, limit: limit + 1 });
      const page = docs.slice(0, limit);
      return { data: page.map(toWorkspace), next_after: docs.length > limit ? page.at(-1)!._id : null };
    },
  };
}

export function toWorkspace(doc: WorkspaceDoc): Workspace {
  return { id: doc._id, name: doc.name, created_at: doc.created_at };
}
