import { type CrmEvent, type Logger, type SqlClient, createOutboxCommit, defineDurableConsumer, isEventOf, isUuid } from '@crm/kit';
import { PeopleEvents } from '@crm/proto';
import { cancelQueuedSendsOf } from './sending/cancel-send';

/**
 * A contact deleted: its queued sends are cancelled, one-off sends as well as a flow's (a flow's are
 * also cancelled by the enrollment's exit; cancelling twice changes nothing). Each ends `failed`
 * with `canceled: contact deleted`, as an exit's does, and is never delivered: the delivery worker
 * re-reads the send's status under its claim. A send already handed to its SMTP server is too late
 * to recall. The ledger and the sent emails themselves stay: they are history.
 */
export function createContactDeletions({ db, log, afterCommit }: { db: SqlClient; log: Logger; afterCommit: () => void }) {
  const commit = createOutboxCommit(db, afterCommit);
  return async function apply(event: CrmEvent): Promise<void> {
    if (!isEventOf(event, PeopleEvents.ContactDeleted)) return;
    const contactId = event.data.id;
    if (!isUuid(event.workspace_id) || typeof contactId !== 'string' || !isUuid(contactId)) {
      log.warn({ eventId: event.id }, 'contact deletion ignored: malformed');
      return;
    }
    await commit(async (tx) => (await cancelQueuedSendsOf(tx, event.workspace_id, contactId.toLowerCase(), 'contact deleted')).flatMap((c) => c.events));
  };
}

export const contactDeletions = defineDurableConsumer({
  name: 'messaging-contact-deletions',
  home: 'messaging',
  subjects: [PeopleEvents.ContactDeleted],
});
