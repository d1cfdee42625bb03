import { type FieldIssue, CrmError, baseFields, defineResource, isUuid } from '@crm/kit';

/** Pools: static groups of contacts (gateway/README.md, "People"). Owned by people. */
export const pools = defineResource({
  name: 'pools',
  singular: 'pool',
  table: 'pools',
  timeField: 'created_at',
  maxLimit: 100,
  customFields: true,
  uniqueConstraints: { pools_svc_uid_key: 'svc_uid' },
  description: 'A static group of contacts, to enroll in a flow at once.',
  operationDocs: {
    list: 'Use it to find pools by owner or visibility.',
    get: 'contacts_count tells how many members it has.',
    create: 'Create the pool, then add members with POST /v1/pools/{id}/members (up to 500 per call).',
    update: 'Use it to rename a pool or change its visibility.',
    delete: 'The member contacts themselves are not deleted.',
  },
  updateExample: { name: 'Q3 webinar attendees (EMEA)' },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    name: { type: 'string', required: true, sort: true, search: true, description: "The pool's name, up to 255 characters.", example: 'Q3 webinar attendees', filter: false },
    description: { type: 'text', search: true, description: 'What the pool is for, free text up to 10,000 characters.', example: 'Everyone who attended the Q3 product webinar.' },
    owner_id: { type: 'uuid', filter: true, description: 'The user (users resource) who owns the pool.' },
    // Omitted on create means private (the column default).
    visibility: { type: 'enum', values: ['private', 'workspace'], nullable: false, filter: true, description: 'private (its owner only) or workspace (every user); private when omitted on create.', example: 'workspace' },
    // Kept exact by the people service in the transaction of every membership change.
    contacts_count: { type: 'integer', readOnly: true, nullable: false, sort: true, description: 'Number of member contacts, kept exact by the server on every membership change.', example: 42, filter: false },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: { ...baseFields.updated_at, sort: true },
  },
});

/** Contact ids per `POST|DELETE /v1/pools/{id}/members` call (gateway/README.md, "Limits"). */
export const MAX_POOL_MEMBERS_PER_CALL = 500;

/**
 * The body of the bulk member operations, `{contact_ids: [uuid, ...]}` with 1 to 500 ids. Shared by
 * the gateway (validation before the call) and the people service (the same rules for gRPC
 * callers). Ids are lower-cased and de-duplicated, keeping their first position.
 */
export function parsePoolMembersBody(body: unknown): string[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw CrmError.validation([{ field: '(body)', message: 'must be a JSON object {"contact_ids": [...]}' }]);
  }
  const issues: FieldIssue[] = [];
  for (const key of Object.keys(body)) {
    if (key !== 'contact_ids') issues.push({ field: key, message: 'is not a field of this operation; send only contact_ids' });
  }
  const ids = (body as { contact_ids?: unknown }).contact_ids;
  if (ids === undefined || ids === null) {
    issues.push({ field: 'contact_ids', message: 'is required' });
  } else if (!Array.isArray(ids)) {
    issues.push({ field: 'contact_ids', message: 'must be an array of contact ids' });
  } else if (ids.length === 0 || ids.length > MAX_POOL_MEMBERS_PER_CALL) {
    issues.push({ field: 'contact_ids', message: `must hold 1 to ${MAX_POOL_MEMBERS_PER_CALL} ids, got ${ids.length}` });
  } else {
    ids.forEach((id, index) => {
      if (typeof id !== 'string' || !isUuid(id)) issues.push({ field: `contact_ids[${index}]`, message: 'must be a UUID' });
    });
  }
  if (issues.length) throw CrmError.validation(issues.slice(0, 20));
  return [...new Set((ids as string[]).map((id) => id.toLowerCase()))];
}
