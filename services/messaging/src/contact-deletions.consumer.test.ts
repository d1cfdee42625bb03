import { newEvent, newId, createLogger } from '@crm/kit';
import { expectEventually, sqlBackends } from '@crm/kit/testing';
import { MessagingEvents, PeopleEvents } from '@crm/proto';
import { type SmtpSink, startSmtpSink } from '../../../test/support/smtp-sink';
import { createContactDeletions } from './contact-deletions.consumer';
import { type MessagingHarness, openMessaging } from './testing/harness';
import { releaseHeld, withHeldDeliveries } from './testing/held-deliveries';

/**
 * Deleting a contact cancels its queued sends, one-off ones included, as a flow's exit does: they
 * end `failed` with `canceled: contact deleted` and are never delivered. What was delivered stays.
 */
describe.each(sqlBackends())('a contact deleted, on $name', (backend) => {
  let sink: SmtpSink;
  let h: MessagingHarness;
  beforeAll(async () => {
    sink = await startSmtpSink();
    h = await openMessaging(backend, { SMTP_URL: sink.url });
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  const ctx = () => ({ workspaceId: h.workspaceId, actorUserId: h.userId });
  const send = (contactId: string) => h.messaging.service.sends.queue(ctx(), { contact_id: contactId, subject: 'Hello', body: '<p>Hi</p>' });
  const get = (id: unknown) => h.messaging.service.sentEmails.get(h.workspaceId, String(id));

  test('its queued one-off sends are cancelled and never delivered; a delivered one and other contacts are untouched', async () => {
    const doomed = await h.contact('leaving@example.com');
    const staying = await h.contact('staying@example.com');
    const delivered = await send(doomed);
    await expectEventually(async () => expect((await get(delivered.id)).status).toBe('sent'));
    const [first, second, other] = await withHeldDeliveries(h.db, () => Promise.all([send(doomed), send(doomed), send(staying)]));

    await h.people.service.contacts.delete({ workspaceId: h.workspaceId }, doomed);
    for (const id of [first.id, second.id]) {
      await expectEventually(async () => expect(await get(id)).toMatchObject({ status: 'failed', failure_reason: 'canceled: contact deleted' }));
    }
    await expectEventually(() =>
      expect(h.eventsOf(MessagingEvents.SentEmailFailed).filter((e) => [first.id, second.id].includes((e.data as { sent_email_id: string }).sent_email_id))).toHaveLength(2),
    );
    await releaseHeld(h.db);
    await expectEventually(async () => expect((await get(other.id)).status).toBe('sent'));
    expect(sink.countOf(String(first.message_id)) + sink.countOf(String(second.message_id))).toBe(0);
    expect((await get(delivered.id)).status).toBe('sent');
  });

  test('a redelivered or malformed deletion changes nothing and wakes nothing', async () => {
    let wakes = 0;
    const apply = createContactDeletions({ db: h.db, log: createLogger('test', 'silent'), afterCommit: () => wakes++ });
    const contactId = await h.contact('twice@example.com');
    const queued = await withHeldDeliveries(h.db, () => send(contactId));
    const deleted = newEvent(PeopleEvents.ContactDeleted, h.workspaceId, { id: contactId });
    await apply(deleted);
    expect(wakes).toBe(1);
    await apply(deleted);
    expect(wakes).toBe(1);
    for (const malformed of [{ id: 'not-a-uuid' }, {}, { id: newId() }]) await apply(newEvent(PeopleEvents.ContactDeleted, h.workspaceId, malformed as { id: string }));
    expect(wakes).toBe(1);
    expect((await get(queued.id)).failure_reason).toBe('canceled: contact deleted');
  });
});
