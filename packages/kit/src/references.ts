import { CrmError, type FieldIssue } from './errors';
import { isUuid } from './ids';
import { validateWrite } from './record-codec';
import type { ResourceStore, WriteContext } from './resource-store';

/**
 * Referential integrity across contexts (gateway/README.md, "References"): an id in a body that
 * names a record another context owns is looked up in the caller's workspace, through the owning
 * service over gRPC with the caller's deadline, before the write. Unknown and foreign ids get the
 * same 422, so existence in another workspace is never revealed.
 */
export interface Reference {
  /** What the field names, for the message: `contact`, `user`. */
  noun: string;
  /** Whether a record of this id exists in the workspace. Errors other than "not found" propagate. */
  exists(workspaceId: string, id: string): Promise<boolean>;
}

export type References = Readonly<Record<string, Reference>>;

/** A lookup by id whose not_found means "no such record": true when found, false when not. */
export function existsBy(lookup: (workspaceId: string, id: string) => Promise<unknown>): Reference['exists'] {
  return async (workspaceId, id) => {
    try {
      await lookup(workspaceId, id);
      return true;
    } catch (error) {
      if (error instanceof CrmError && error.code === 'not_found') return false;
      throw error;
    }
  };
}

/** Checks every referenced id a body sets (null clears, and needs no check). */
export async function checkReferences(ctx: WriteContext, body: unknown, references: References): Promise<void> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  const issues: FieldIssue[] = [];
  await Promise.all(
    Object.entries(references).map(async ([field, reference]) => {
      if (!Object.hasOwn(body, field)) return;
      const value = (body as Record<string, unknown>)[field];
      // A malformed id is the validator's to report; only well-formed ones are looked up.
      if (typeof value !== 'string' || !isUuid(value)) return;
      if (!(await reference.exists(ctx.workspaceId, value.toLowerCase()))) {
        issues.push({ field, message: `no ${reference.noun} with this id in the workspace` });
      }
    }),
  );
  if (issues.length) throw CrmError.validation(issues.sort((a, b) => a.field.localeCompare(b.field)));
}

/**
 * The store, with its creates and updates checking the references their body sets first. The
 * body's own validation runs before any lookup, so a request with bad fields costs no call.
 */
export function withReferenceChecks(store: ResourceStore, references: References): ResourceStore {
  return {
    spec: store.spec,
    list: (workspaceId, query) => store.list(workspaceId, query),
    get: (workspaceId, id) => store.get(workspaceId, id),
    delete: (ctx, id) => store.delete(ctx, id),
    async create(ctx, body, options) {
      validateWrite(store.spec, body, 'create');
      await checkReferences(ctx, body, references);
      return store.create(ctx, body, options);
    },
    async update(ctx, id, body, options) {
      validateWrite(store.spec, body, 'update');
      await checkReferences(ctx, body, references);
      return store.update(ctx, id, body, options);
    },
  };
}
