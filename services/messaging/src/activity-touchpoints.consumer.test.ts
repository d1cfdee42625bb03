import { createLogger, newEvent, newId } from '@crm/kit';
import { expectEventually, sqlBackends } from '@crm/kit/testing';
import { ActivitiesEvents, MessagingEvents } from '@crm/proto';
import { activityTouchpoints, createActivityTouchpoints } from './activity-touchpoints.consumer';
import { type MessagingHarness, openMessaging } from './testing/harness';

/**
 * A call logged or a meeting booked with a contact becomes one touchpoint, committed with its
 * `touchpoint.recorded` event, and the outbox relay is woken for it; a redelivery writes nothing.
 */
describe.each(sqlBackends())('activity touchpoints on $name', (backend) => {
  let h: MessagingHarness;
  beforeAll(async () => {
    h = await openMessaging(backend);
  });
  afterAll(async () => h?.close());

  const touchpointsOf = async (sourceId: string) =>
    (
      await h.db.query<{ source: string; status: string; summary: string }>(
        `SELECT source, status, summary FROM touchpoints WHERE workspace_id = $1::uuid AND source_id = $2::uuid`,
        [h.workspaceId, sourceId],
      )
    ).rows;

  test('a call logged is one touchpoint, its event published, the relay woken once', async () => {
    let wakes = 0;
    const apply = createActivityTouchpoints({ db: h.db, log: createLogger('test', 'silent'), afterCommit: () => wakes++ });
    const callLogId = newId();
    const event = newEvent(ActivitiesEvents.CallLogged, h.workspaceId, {
      call_log_id: callLogId,
      contact_id: newId(),
      owner_id: h.userId,
      status: 'failed',
      outcome: 'no_answer',
      duration_seconds: 0,
      occurred_at: '2026-11-27T10:00:00.000Z',
    });
    await apply(event);
    expect(await touchpointsOf(callLogId)).toEqual([{ source: 'call_log', status: 'failed', summary: 'Call failed (no_answer), 0 s' }]);
    expect(wakes).toBe(1);
    const [{ id }] = (await h.db.query<{ id: string }>(`SELECT id FROM touchpoints WHERE workspace_id = $1::uuid AND source_id = $2::uuid`, [h.workspaceId, callLogId])).rows as [{ id: string }];
    const published = () => h.eventsOf(MessagingEvents.TouchpointRecorded).filter((e) => (e.data as { touchpoint_id?: string }).touchpoint_id === id);
    await expectEventually(() => expect(published()).toHaveLength(1));

    // Redelivered: nothing new, nothing to publish, no wake.
    await apply(event);
    expect(await touchpointsOf(callLogId)).toHaveLength(1);
    expect(wakes).toBe(1);
    expect(published()).toHaveLength(1);
  });

  test('an event without a contact, or with a malformed time, is not a touchpoint', async () => {
    let wakes = 0;
    const apply = createActivityTouchpoints({ db: h.db, log: createLogger('test', 'silent'), afterCommit: () => wakes++ });
    const [noContact, badTime] = [newId(), newId()];
    await apply(newEvent(ActivitiesEvents.CallLogged, h.workspaceId, { call_log_id: noContact, status: 'completed', occurred_at: '2026-11-27T10:00:00.000Z' }));
    await apply(newEvent(ActivitiesEvents.MeetingScheduled, h.workspaceId, { meeting_id: badTime, contact_id: newId(), occurred_at: 'yesterday' }));
    expect(await touchpointsOf(noContact)).toEqual([]);
    expect(await touchpointsOf(badTime)).toEqual([]);
    expect(wakes).toBe(0);
  });

  test("each deployment (schema) has a durable of its own; messaging's own schema keeps the plain name", () => {
    expect(activityTouchpoints.durableFor('messaging')).toBe('messaging-activity-touchpoints');
    expect(activityTouchpoints.durableFor(h.db.schema)).toBe(`messaging-activity-touchpoints_${h.db.schema}`.slice(0, 64));
  });
});
