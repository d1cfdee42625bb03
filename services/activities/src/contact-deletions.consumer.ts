import { type CrmEvent, type EventBus, type SqlClient, type Subscription, defineDurableConsumer, isUuid } from '@crm/kit';
import { PeopleEvents } from '@crm/proto';

/**
 * What a contact's deletion does to the activities that name it (gateway/README.md, "References"):
 * its tasks, call logs and meetings stay (they are the team's history, and count in its
 * performance) but no longer name it: their `contact_id` becomes null. An organization's deletion
 * clears its tasks' `organization_id` alike. Idempotent: a redelivery finds nothing left to
 * detach. The records publish no event; nothing about them changed but the link to a record that
 * no longer exists.
 */
export function createContactDetach(db: SqlClient, now: () => Date = () => new Date()) {
  return async function detach(event: Pick<CrmEvent, 'type' | 'workspace_id' | 'data'>): Promise<number> {
    const id = (event.data as { id?: unknown }).id;
    if (typeof id !== 'string' || !isUuid(id) || !isUuid(event.workspace_id)) return 0;
    if (event.type === PeopleEvents.OrganizationDeleted) {
      const { rows } = await db.query<{ n: number }>(
        `WITH t AS (UPDATE tasks SET organization_id = NULL, updated_at = $3::timestamptz WHERE workspace_id = $1::uuid AND organization_id = $2::uuid RETURNING 1)
         SELECT count(*)::int AS n FROM t`,
        [event.workspace_id, id.toLowerCase(), now().toISOString()],
      );
      return rows[0]?.n ?? 0;
    }
    if (event.type !== PeopleEvents.ContactDeleted) return 0;
    const contactId = id;
    const { rows } = await db.query<{ n: number }>(
      `WITH t AS (UPDATE tasks SET contact_id = NULL, updated_at = $3::timestamptz WHERE workspace_id = $1::uuid AND contact_id = $2::uuid RETURNING 1),
            c AS (UPDATE call_logs SET contact_id = NULL, updated_at = $3::timestamptz WHERE workspace_id = $1::uuid AND contact_id = $2::uuid RETURNING 1),
            m AS (UPDATE meetings SET contact_id = NULL, updated_at = $3::timestamptz WHERE workspace_id = $1::uuid AND contact_id = $2::uuid RETURNING 1)
       SELECT ((SELECT count(*) FROM t) + (SELECT count(*) FROM c) + (SELECT count(*) FROM m))::int AS n`,
      [event.workspace_id, contactId.toLowerCase(), now().toISOString()],
    );
    return rows[0]?.n ?? 0;
  };
}

export const contactDeletions = defineDurableConsumer({
  name: 'activities-contact-deletions',
  home: 'activities',
  subjects: [PeopleEvents.ContactDeleted, PeopleEvents.OrganizationDeleted],
});

export function subscribeContactDeletions(bus: EventBus, db: SqlClient): Promise<Subscription> {
  const detach = createContactDetach(db);
  return contactDeletions.subscribe(bus, db.schema, async (event) => {
    await detach(event);
  });
}
