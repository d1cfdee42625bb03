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

export interface Workspaces {
  createWorkspace(input: CreateWorkspaceInput): Promise<Workspace>;
  getWorkspace(id: string): Promise<Workspace>;
}

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
  };
}

export function toWorkspace(doc: WorkspaceDoc): Workspace {
  return { id: doc._id, name: doc.name, created_at: doc.created_at };
}
