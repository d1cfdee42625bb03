import { type CrmEvent, type EventBus, type Subscription, createMemoryBus, createNatsBus, newId, newRawEvent } from '@crm/kit';
import { TEST_NATS_URL, expectEventually, serviceAvailable, sqlBackends } from '@crm/kit/testing';
import { ActivitiesEvents, MessagingEvents, PeopleEvents } from '@crm/proto';
import fc from 'fast-check';
import {
  interpretActivity,
  activityTimestampsConsumer,
  subscribeActivityTimestamps,
} from './activity-timestamps.consumer';
import { type PeopleHarness, openPeople } from './testing/harness';

const T = (minutes: number) => new Date(Date.UTC(2026, 4, 15, 10, minutes)).toISOString();
const effectOf = (type: string, data: Record<string, unknown>) => {
  const read = interpretActivity({ type, data });
  if (!read.ok) throw new Error(read.reason);
  return read.effect && { touch: read.effect.touchpointAt?.toISOString() ?? null, engage: read.effect.engagementAt?.toISOString() ?? null };
};

describe('which activity counts as a touchpoint and which as engagement', () => {
  const contact_id = newId();
  test.each([
    ['email sent', MessagingEvents.EmailSent, { sent_email_id: newId(), contact_id, sent_at: T(1) }, { touch: T(1), engage: null }],
    ['email opened', MessagingEvents.EmailEventRecorded, { contact_id, event_type: 'open', occurred_at: T(2) }, { touch: null, engage: T(2) }],
    ['email clicked', MessagingEvents.EmailEventRecorded, { contact_id, event_type: 'click', occurred_at: T(2) }, { touch: null, engage: T(2) }],
    ['open by a scanner', MessagingEvents.EmailEventRecorded, { contact_id, event_type: 'open', occurred_at: T(2), is_bot: true }, undefined],
    ['click by a scanner', MessagingEvents.EmailEventRecorded, { contact_id, event_type: 'click', occurred_at: T(2), is_bot: true }, undefined],
    ['email replied', MessagingEvents.EmailEventRecorded, { contact_id, event_type: 'reply', occurred_at: T(3) }, { touch: T(3), engage: T(3) }],
    ['email bounced', MessagingEvents.EmailEventRecorded, { contact_id, event_type: 'bounce', occurred_at: T(3) }, undefined],
    ['unsubscribed', MessagingEvents.EmailEventRecorded, { contact_id, event_type: 'unsubscribe', occurred_at: T(3) }, undefined],
    ['outbound touchpoint', MessagingEvents.TouchpointRecorded, { contact_id, channel: 'chat_app', direction: 'outbound', status: 'completed', occurred_at: T(4) }, { touch: T(4), engage: null }],
    ['inbound touchpoint', MessagingEvents.TouchpointRecorded, { contact_id, channel: 'chat_app', direction: 'inbound', status: 'completed', occurred_at: T(4) }, { touch: T(4), engage: T(4) }],
    ['failed touchpoint', MessagingEvents.TouchpointRecorded, { contact_id, channel: 'email', direction: 'outbound', status: 'failed', occurred_at: T(4) }, undefined],
    ['connected call', ActivitiesEvents.CallLogged, { call_log_id: newId(), contact_id, status: 'completed', outcome: 'connected', occurred_at: T(5) }, { touch: T(5), engage: T(5) }],
    ['voicemail', ActivitiesEvents.CallLogged, { call_log_id: newId(), contact_id, status: 'completed', outcome: 'voicemail', occurred_at: T(5) }, { touch: T(5), engage: null }],
    ['missed call', ActivitiesEvents.CallLogged, { call_log_id: newId(), contact_id, status: 'missed', occurred_at: T(5) }, { touch: T(5), engage: null }],
    ['failed call', ActivitiesEvents.CallLogged, { call_log_id: newId(), contact_id, status: 'failed', occurred_at: T(5) }, undefined],
    ['call without a contact', ActivitiesEvents.CallLogged, { call_log_id: newId(), status: 'completed', occurred_at: T(5) }, undefined],
    ['meeting booked', ActivitiesEvents.MeetingScheduled, { meeting_id: newId(), contact_id, scheduled_start: T(50), occurred_at: T(6) }, { touch: T(6), engage: T(6) }],
    ['task completed', ActivitiesEvents.TaskCompleted, { task_id: newId(), contact_id, completed_at: T(7) }, { touch: T(7), engage: null }],
    ['task without a contact', ActivitiesEvents.TaskCompleted, { task_id: newId(), completed_at: T(7) }, undefined],
  ])('%s', (_name, type, data, expected) => {
    expect(effectOf(type, data)).toEqual(expected);
  });

  test('a malformed event is reported, not applied', () => {
    expect(interpretActivity({ type: MessagingEvents.EmailSent, data: { contact_id: 'x', sent_at: T(1) } })).toEqual({ ok: false, reason: 'contact_id is not a UUID' });
    expect(interpretActivity({ type: MessagingEvents.EmailSent, data: { contact_id, sent_at: 'yesterday' } })).toMatchObject({ ok: false });
  });
});

interface BusCase {
  name: string;
  open(): Promise<EventBus>;
}

const buses: BusCase[] = [
  { name: 'memory bus', open: async () => createMemoryBus() },
  // The shared `CRM` stream keeps earlier runs' events: the suite's new durable starts at its own start.
  ...(serviceAvailable('NATS', TEST_NATS_URL)
    ? [{ name: 'NATS JetStream', open: () => createNatsBus({ servers: TEST_NATS_URL, name: 'people-test', newDurablesFrom: new Date() }) }]
    : []),
];

describe.each(sqlBackends())('activity timestamps consumed on $name', (backend) => {
  describe.each(buses)('over the $name', (busCase) => {
    let bus: EventBus;
    let h: PeopleHarness;
    let consumer: Subscription;
    const ws = newId();
    const ctx = { workspaceId: ws };

    beforeAll(async () => {
      bus = await busCase.open();
      h = await openPeople(backend, 't_activity', { bus });
      consumer = await subscribeActivityTimestamps(bus, h.people.activity, h.db.schema);
    });
    afterAll(async () => {
      await consumer.stop();
      await h.close();
      if (busCase.name === 'NATS JetStream') {
        const { connect } = await import('@nats-io/transport-node');
        const { jetstreamManager } = await import('@nats-io/jetstream');
        const nc = await connect({ servers: TEST_NATS_URL });
        const jsm = await jetstreamManager(nc);
        for (const durable of [activityTimestampsConsumer.durableFor(h.db.schema), `t_activity-observer-${h.db.schema}`.slice(0, 64)]) {
          await jsm.consumers.delete('CRM', durable).catch(() => undefined);
        }
        await nc.close();
      }
      await bus.close();
    });

    const publish = async (type: string, data: Record<string, unknown>, workspaceId = ws): Promise<CrmEvent> => {
      // Raw: some of these payloads are malformed on purpose, as a faulty producer would send them.
      const event = newRawEvent(type, workspaceId, data);
      await bus.publish(event);
      return event;
    };
    const timestamps = async (id: string) => {
      const c = await h.people.contacts.get(ws, id);
      return { touch: c.last_touchpoint_at, engage: c.last_engagement_at, updated_at: c.updated_at };
    };
    const changesOf = (id: string) => h.eventsOf(PeopleEvents.ContactUpdated).filter((e) => e.data.id === id && e.data.cause);

    test('events move the timestamps forward, never back, and a repeat changes nothing', async () => {
      const id = (await h.people.contacts.create(ctx, { first_name: 'Ada' })).id as string;
      await publish(MessagingEvents.EmailSent, { sent_email_id: newId(), contact_id: id, sent_at: T(10) });
      await expectEventually(async () => expect(await timestamps(id)).toMatchObject({ touch: T(10), engage: null }), { timeoutMs: 20_000 });

      const reply = await publish(MessagingEvents.EmailEventRecorded, { email_event_id: newId(), sent_email_id: newId(), contact_id: id, event_type: 'reply', occurred_at: T(20) });
      await expectEventually(async () => expect(await timestamps(id)).toMatchObject({ touch: T(20), engage: T(20) }), { timeoutMs: 20_000 });
      await expectEventually(() => expect(changesOf(id).map((e) => e.data.changed)).toEqual([['last_touchpoint_at'], ['last_touchpoint_at', 'last_engagement_at']]));
      const settled = await timestamps(id);

      // Older activity (a late email open, an old call) and the reply again, redelivered as new events.
      await publish(MessagingEvents.EmailEventRecorded, { contact_id: id, event_type: 'open', occurred_at: T(15) });
      await publish(ActivitiesEvents.CallLogged, { call_log_id: newId(), contact_id: id, status: 'completed', outcome: 'connected', occurred_at: T(5) });
      await publish(reply.type, reply.data);
      // A later bounce does not count, then a later open moves only the engagement: once it shows,
      // everything published before it has been handled (in order for this durable).
      await publish(MessagingEvents.EmailEventRecorded, { contact_id: id, event_type: 'bounce', occurred_at: T(40) });
      await publish(MessagingEvents.EmailEventRecorded, { contact_id: id, event_type: 'open', occurred_at: T(30) });
      await expectEventually(async () => expect(await timestamps(id)).toMatchObject({ touch: T(20), engage: T(30) }), { timeoutMs: 20_000 });
      expect((await timestamps(id)).updated_at >= settled.updated_at).toBe(true);
      await expectEventually(() => expect(changesOf(id).map((e) => e.data.changed)).toHaveLength(3));
      expect(changesOf(id)[2]!.data).toMatchObject({ changed: ['last_engagement_at'], cause: MessagingEvents.EmailEventRecorded });
    });

    test("calls, meetings, touchpoints and tasks; other workspaces' and unknown contacts are left alone", async () => {
      const id = (await h.people.contacts.create(ctx, { first_name: 'Grace' })).id as string;
      await publish(MessagingEvents.TouchpointRecorded, { touchpoint_id: newId(), contact_id: id, channel: 'call', direction: 'outbound', status: 'completed', occurred_at: T(1) });
      await publish(ActivitiesEvents.CallLogged, { call_log_id: newId(), contact_id: id, status: 'missed', occurred_at: T(2) });
      await expectEventually(async () => expect(await timestamps(id)).toMatchObject({ touch: T(2), engage: null }), { timeoutMs: 20_000 });
      await publish(ActivitiesEvents.MeetingScheduled, { meeting_id: newId(), contact_id: id, scheduled_start: T(59), occurred_at: T(3) });
      await expectEventually(async () => expect(await timestamps(id)).toMatchObject({ touch: T(3), engage: T(3) }), { timeoutMs: 20_000 });
      // The same contact id under another workspace is not this contact; a malformed event is skipped.
      await publish(ActivitiesEvents.TaskCompleted, { task_id: newId(), contact_id: id, completed_at: T(50) }, newId());
      await publish(ActivitiesEvents.TaskCompleted, { task_id: newId(), contact_id: 'not-a-uuid', completed_at: T(50) });
      await publish(MessagingEvents.EmailSent, { sent_email_id: newId(), contact_id: newId(), sent_at: T(50) });
      await publish(ActivitiesEvents.TaskCompleted, { task_id: newId(), contact_id: id, completed_at: T(4) });
      await expectEventually(async () => expect(await timestamps(id)).toMatchObject({ touch: T(4), engage: T(3) }), { timeoutMs: 20_000 });
    });

    test('a time in the future counts as now', async () => {
      const id = (await h.people.contacts.create(ctx, { first_name: 'Skewed' })).id as string;
      const before = Date.now();
      await publish(MessagingEvents.EmailSent, { sent_email_id: newId(), contact_id: id, sent_at: '2099-01-01T00:00:00Z' });
      const { touch } = await expectEventually(async () => {
        const t = await timestamps(id);
        expect(t.touch).not.toBeNull();
        return t;
      }, { timeoutMs: 20_000 });
      expect(Date.parse(touch as string)).toBeGreaterThanOrEqual(before - 5);
      expect(Date.parse(touch as string)).toBeLessThanOrEqual(Date.now());
    });
  });
});

describe.each(sqlBackends())('activity timestamps applied in groups on $name', (backend) => {
  let h: PeopleHarness;
  const ws = newId();
  const ctx = { workspaceId: ws };
  beforeAll(async () => {
    h = await openPeople(backend, 't_activity_groups');
  });
  afterAll(() => h.close());

  const timestamps = async (id: string) => {
    const c = await h.people.contacts.get(ws, id);
    return { touch: c.last_touchpoint_at, engage: c.last_engagement_at };
  };
  const changesOf = (id: string) => h.eventsOf(PeopleEvents.ContactUpdated).filter((e) => e.data.id === id && e.data.cause);
  const sent = (contact_id: string, at: string, workspaceId = ws) =>
    newRawEvent(MessagingEvents.EmailSent, workspaceId, { sent_email_id: newId(), contact_id, sent_at: at });
  const engaged = (contact_id: string, event_type: string, at: string) =>
    newRawEvent(MessagingEvents.EmailEventRecorded, ws, { email_event_id: newId(), sent_email_id: newId(), contact_id, event_type, occurred_at: at });

  test("a group moves each contact to its latest times, and only the first event holding a time reports it", async () => {
    const other = (await h.people.contacts.create(ctx, { first_name: 'Other' })).id as string;
    const id = (await h.people.contacts.create(ctx, { first_name: 'Ada' })).id as string;
    // The first goes alone; the rest arrive while it commits and go together in the next group.
    const outcomes = await Promise.all(
      [
        sent(other, T(1)),
        sent(id, T(10)),
        sent(id, T(10)),
        sent(id, T(5)),
        engaged(id, 'open', T(7)),
        engaged(id, 'reply', T(10)),
        engaged(id, 'open', T(8)),
        sent(id, T(30), newId()), // the same contact id in another workspace is not this contact
      ].map((event) => h.people.activity.apply(event)),
    );
    expect(outcomes).toEqual(['updated', 'updated', 'unchanged', 'unchanged', 'unchanged', 'updated', 'unchanged', 'unchanged']);
    expect(await timestamps(id)).toEqual({ touch: T(10), engage: T(10) });
    await expectEventually(() =>
      expect(changesOf(id).map((e) => [e.data.changed, e.data.cause])).toEqual([
        [['last_touchpoint_at'], MessagingEvents.EmailSent],
        [['last_engagement_at'], MessagingEvents.EmailEventRecorded],
      ]),
    );
    // All of them again: nothing moves and nothing is published.
    const again = await Promise.all([sent(id, T(10)), engaged(id, 'reply', T(10)), sent(id, T(9))].map((event) => h.people.activity.apply(event)));
    expect(again).toEqual(['unchanged', 'unchanged', 'unchanged']);
    expect(changesOf(id)).toHaveLength(2);
  });

  test('whatever the groups, the stored times are the latest of the events and each reported move is one event', async () => {
    const kinds = [
      { make: (c: string, at: string) => sent(c, at), touch: true, engage: false },
      { make: (c: string, at: string) => engaged(c, 'open', at), touch: false, engage: true },
      { make: (c: string, at: string) => engaged(c, 'reply', at), touch: true, engage: true },
      { make: (c: string, at: string) => engaged(c, 'bounce', at), touch: false, engage: false },
    ];
    const arbEvent = fc.record({ contact: fc.nat(2), kind: fc.nat(kinds.length - 1), minute: fc.nat(59) });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(arbEvent, { minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 4 }), async (batches) => {
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) ids.push((await h.people.contacts.create(ctx, { first_name: `P${i}` })).id as string);
        const published = h.eventsOf(PeopleEvents.ContactUpdated).length;
        let updated = 0;
        for (const batch of batches) {
          const outcomes = await Promise.all(batch.map((e) => h.people.activity.apply(kinds[e.kind]!.make(ids[e.contact]!, T(e.minute)))));
          updated += outcomes.filter((o) => o === 'updated').length;
        }
        const all = batches.flat();
        for (const [i, id] of ids.entries()) {
          const latest = (pick: 'touch' | 'engage') => {
            const minutes = all.filter((e) => e.contact === i && kinds[e.kind]![pick]).map((e) => e.minute);
            return minutes.length ? T(Math.max(...minutes)) : null;
          };
          expect(await timestamps(id)).toEqual({ touch: latest('touch'), engage: latest('engage') });
        }
        // Each `updated` answer is one contact.updated, and a column moves at most once per group.
        await expectEventually(() => expect(h.eventsOf(PeopleEvents.ContactUpdated).length - published).toBe(updated));
        const mine = h.eventsOf(PeopleEvents.ContactUpdated).slice(published);
        for (const event of mine) expect((event.data.changed as string[]).length).toBeGreaterThan(0);
        for (const [i, id] of ids.entries()) {
          const moves = (column: string) => mine.filter((e) => e.data.id === id && (e.data.changed as string[]).includes(column)).length;
          // The first of a batch goes alone, the rest together: at most two groups per batch.
          const groupsWith = (pick: 'touch' | 'engage') => {
            const counts = (e: { contact: number; kind: number }) => e.contact === i && kinds[e.kind]![pick];
            // Events that change nothing (a bounce) never join a group.
            const grouped = batches.map((b) => b.filter((e) => kinds[e.kind]!.touch || kinds[e.kind]!.engage)).filter((b) => b.length);
            return grouped.reduce((n, [first, ...rest]) => n + (counts(first!) ? 1 : 0) + (rest.some(counts) ? 1 : 0), 0);
          };
          expect(moves('last_touchpoint_at')).toBeLessThanOrEqual(groupsWith('touch'));
          expect(moves('last_engagement_at')).toBeLessThanOrEqual(groupsWith('engage'));
        }
      }),
      { numRuns: backend.name === 'pglite' ? 15 : 30 },
    );
  });
});
